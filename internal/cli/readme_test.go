package cli_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/cli"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
)

// The README's code blocks are checked as benchstat checks its doc: a
// usage block must name exactly the flags its command has, and an output
// example must be what the command prints.

const readmePath = "../../README.md"

// readmeBlocks are the README's fenced code blocks, each as its lines.
func readmeBlocks(t *testing.T) [][]string {
	t.Helper()
	f, err := os.Open(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks [][]string
	var cur []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```") && in:
			blocks, cur, in = append(blocks, cur), nil, false
		case strings.HasPrefix(line, "```"):
			in = true
		case in:
			cur = append(cur, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

var (
	flagName = regexp.MustCompile(`--[a-z][a-z0-9-]*`)
	// helpFlag is a flag's own line in --help, not a mention of it.
	helpFlag = regexp.MustCompile(`(?m)^\s+(?:-[a-z], )?(--[a-z][a-z0-9-]*)`)
)

// TestTheREADMEsUsageBlocksNameEveryFlag holds each `hopbench CMD ...`
// usage block to the flags `hopbench CMD --help` lists, both ways.
func TestTheREADMEsUsageBlocksNameEveryFlag(t *testing.T) {
	documented := map[string][]string{}
	for _, b := range readmeBlocks(t) {
		fields := strings.Fields(b[0])
		if len(fields) < 2 || fields[0] != "hopbench" || !slices.ContainsFunc(b, func(l string) bool { return strings.Contains(l, "[--") }) {
			continue // not a usage block
		}
		documented[fields[1]] = append(documented[fields[1]], flagName.FindAllString(strings.Join(b, " "), -1)...)
	}
	if len(documented) < 8 {
		t.Fatalf("found usage blocks for %d commands (%v): has the README's layout changed?", len(documented), documented)
	}
	for cmd, named := range documented {
		help, _, err := run(t, cmd, "--help")
		if err != nil {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		_, flags, _ := strings.Cut(help, "Flags:")
		var has []string
		for _, m := range helpFlag.FindAllStringSubmatch(flags, -1) {
			has = append(has, m[1])
		}
		for _, f := range named {
			if !slices.Contains(has, f) {
				t.Errorf("the README's usage of hopbench %s names %s, which the command does not have", cmd, f)
			}
		}
		for _, f := range has {
			if f != "--help" && !slices.Contains(named, f) {
				t.Errorf("hopbench %s has %s, which the README's usage block leaves out", cmd, f)
			}
		}
	}
}

// follows checks that example (an output block, its command line left out)
// is what got printed: each run of lines between "..." lines appears in
// got, in order and contiguously; "..." inside a line stands for any text.
func follows(t *testing.T, example []string, got string) {
	t.Helper()
	out := strings.Split(got, "\n")
	for i := range out {
		out[i] = strings.TrimRight(out[i], " ")
	}
	at := 0
	for _, chunk := range chunks(example) {
		found := -1
		for i := at; i+len(chunk) <= len(out) && found < 0; i++ {
			if matchAll(chunk, out[i:i+len(chunk)]) {
				found = i
			}
		}
		if found < 0 {
			t.Errorf("the README shows\n%s\nwhich is not what the command printed (from line %d on):\n%s", strings.Join(chunk, "\n"), at+1, got)
			return
		}
		at = found + len(chunk)
	}
}

func chunks(example []string) [][]string {
	var all [][]string
	var cur []string
	for _, l := range example {
		if strings.TrimSpace(l) == "..." {
			all, cur = append(all, cur), nil
			continue
		}
		cur = append(cur, l)
	}
	return slices.DeleteFunc(append(all, cur), func(c []string) bool { return len(c) == 0 })
}

func matchAll(want, got []string) bool {
	for i, w := range want {
		parts := strings.Split(w, "...")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		if !regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got[i]) {
			return false
		}
	}
	return true
}

// example is the README's output block whose command line starts with
// prefix: the command's arguments and the lines it shows.
func example(t *testing.T, prefix string) (args []string, lines []string) {
	t.Helper()
	for _, b := range readmeBlocks(t) {
		if strings.HasPrefix(b[0], prefix) {
			return strings.Fields(strings.TrimPrefix(b[0], "$ hopbench")), b[1:]
		}
	}
	t.Fatalf("the README has no example starting %q", prefix)
	return nil, nil
}

// The advise example is run as the README shows it, on the results it
// names.
func TestTheREADMEsAdviceExampleIsWhatAdvisePrints(t *testing.T) {
	args, lines := example(t, "$ hopbench advise")
	t.Chdir("../..")
	out, _, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	follows(t, lines, out)
}

// The compare example compares the rest+proto and graphql runs of
// compare's test data, split into two results directories as it says.
func TestTheREADMEsCompareExampleIsWhatComparePrints(t *testing.T) {
	args, lines := example(t, "$ hopbench compare")
	recs, _, err := results.Read("../compare/testdata/a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, r := range recs {
		name := strings.SplitN(r.Stack, "+", 2)[0]
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := results.Append(filepath.Join(dir, name, "results.jsonl"), &r); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	out, _, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	follows(t, lines, out)
}

// The capacity example came from a live search; its probes are fed to the
// printer as they were measured, and what it prints must read as shown.
func TestTheREADMEsCapacityExampleIsWhatLoadPrints(t *testing.T) {
	_, lines := example(t, "$ hopbench load --stack rest --target 127.0.0.1:7171 --capacity")
	probe := func(rate, achieved float64, p99us, lateCalls int64, verdict string) results.Step {
		return results.Step{Value: rate, RPS: achieved, PercentileUs: p99us, Errors: lateCalls,
			ErrorsByClass: map[string]int64{load.ClassOverSLA.String(): lateCalls}, Probe: verdict}
	}
	steps := []results.Step{
		probe(1000, 1000, 2261, 0, results.ProbeWithin), probe(2000, 2000, 1965, 0, results.ProbeWithin),
		probe(4000, 4000, 1546, 0, results.ProbeWithin), probe(8000, 7994, 20700, 393, results.ProbeOverSLA),
		probe(5657, 5654, 2131, 0, results.ProbeWithin), probe(6727, 6727, 13200, 178, results.ProbeOverSLA),
		probe(6169, 6168, 1856, 0, results.ProbeWithin), probe(6442, 6442, 3607, 30, results.ProbeWithin),
	}
	c := &results.SearchResult{Percentile: 99, SLAUs: (10 * time.Millisecond).Microseconds(), MaxErrors: 0.001,
		RPS: 6442, Above: 6727, Step: 7, Ended: "bracketed: 6442 req/s met the SLA, 6727 did not"}
	out, err := cli.PrintCapacity(c, steps)
	if err != nil {
		t.Fatal(err)
	}
	follows(t, lines, out)
}
