package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hopbench/hopbench/internal/racetest"
)

// Every committed study's report.md is what hopbench report makes of its
// records today: a change to the references, the reproduction or the
// report that changes a committed report must write it again (hopbench
// report experiments/STUDY), so EXPERIMENTS.md and the reports never
// drift from each other. The "From" line, which names the directory as
// given, is left out of the comparison.
func TestTheCommittedStudyReportsAreTheirRecords(t *testing.T) {
	racetest.Unraced(t, "rendering on one goroutine, several times slower under -race for nothing")
	dirs, err := filepath.Glob("../../experiments/*/report.md")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no committed reports: %v", err)
	}
	from := regexp.MustCompile("(?m)^From `[^`]*`\\.\n")
	for _, path := range dirs {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			out := t.TempDir()
			if _, _, err := run(t, "report", dir, "-o", out); err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(path)
			got, err := os.ReadFile(filepath.Join(out, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			if from.ReplaceAllString(string(got), "") != from.ReplaceAllString(string(want), "") {
				t.Errorf("%s is not what hopbench report makes of its records today: write it again with hopbench report experiments/%s", path, filepath.Base(dir))
			}
		})
	}
}
