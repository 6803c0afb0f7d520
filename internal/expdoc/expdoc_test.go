package expdoc

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/racetest"
)

var update = flag.Bool("update", false, "write EXPERIMENTS.md from its template and the records")

const root = "../.."

func render(t *testing.T) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, Template))
	if err != nil {
		t.Fatal(err)
	}
	got, err := New(root).Render(string(text))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// EXPERIMENTS.md is what its template makes of the committed records:
// a figure changed by hand, or records that no longer say it, fail here.
func TestExperimentsMDIsMadeFromItsRecords(t *testing.T) {
	racetest.Unraced(t, "rendering on one goroutine, several times slower under -race for nothing")
	got := render(t)
	page := filepath.Join(root, Page)
	if *update {
		if err := os.WriteFile(page, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := Compare(string(want), string(got)); err != nil {
		t.Errorf("%v\n(edit %s, not %s, then run go test ./internal/expdoc -update and review the diff)", err, Template, Page)
	}
}

// One digit of a figure the template draws from the records, changed on
// the page, is caught, with its line.
func TestOneDigitChangedOnThePageIsCaught(t *testing.T) {
	racetest.Unraced(t, "rendering on one goroutine, several times slower under -race for nothing")
	got := string(render(t))
	at := strings.Index(got, " findings: holds ")
	if at < 0 {
		t.Fatal("no tally on the page")
	}
	at-- // the tally's last digit
	digit := got[at]
	changed := got[:at] + string('0'+(digit-'0'+1)%10) + got[at+1:]
	err := Compare(changed, got)
	if err == nil || !strings.Contains(err.Error(), "line ") {
		t.Errorf("a changed digit passes: %v", err)
	}
}
