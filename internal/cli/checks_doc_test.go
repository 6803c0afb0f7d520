package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/check"
	"github.com/hopbench/hopbench/internal/cli"
	"github.com/hopbench/hopbench/internal/compare"
	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/threshold"
)

const thresholdsPage = "../../docs/thresholds.md"

// specBlock is the YAML block of docs/thresholds.md whose first line is
// "# NAME".
func specBlock(t *testing.T, name string) string { return pageBlock(t, thresholdsPage, name) }

// pageBlock is the fenced block of page whose first line is "# NAME".
func pageBlock(t *testing.T, page, name string) string {
	t.Helper()
	for _, b := range fencedBlocks(t, page) {
		if len(b.lines) > 0 && b.lines[0] == "# "+name {
			return strings.Join(b.lines, "\n") + "\n"
		}
	}
	t.Fatalf("%s has no block starting # %s", page, name)
	return ""
}

// docs/messaging.md's spec parses as written: one-way, three brokers.
func TestTheMessagingPagesSpecParses(t *testing.T) {
	s, err := experiment.Parse([]byte(pageBlock(t, "../../docs/messaging.md", "messaging.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 3 || runs[0].OneWay == nil || runs[0].OneWay.Consumers != 2 {
		t.Fatalf("%d runs, the first one-way %+v: want 3 one-way runs of 2 consumers", len(runs), runs[0].OneWay)
	}
}

// docs/messaging.md's spec of brokers at rest parses as written: every
// run starts its broker anew.
func TestTheMessagingPagesIdleSpecParses(t *testing.T) {
	s, err := experiment.Parse([]byte(pageBlock(t, "../../docs/messaging.md", "idle.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 3 || !runs[0].FreshBroker || !runs[2].FreshBroker {
		t.Fatalf("%d runs, %+v: want 3 one-way runs, each starting its broker anew", len(runs), runs)
	}
}

// The page's spec parses as written, with its two rules.
func TestTheThresholdsPagesSpecParses(t *testing.T) {
	s, err := experiment.Parse([]byte(specBlock(t, "gated.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Thresholds) != 2 || !s.Thresholds[1].Selects("grpc", "direct") || s.Thresholds[1].Selects("rest", "direct") {
		t.Errorf("thresholds: %+v", s.Thresholds)
	}
}

// The page's spec with a typo is refused as the page shows: the key, the
// text, the column and what is expected, exit 2.
func TestTheThresholdsPagesTypoIsRefusedAsShown(t *testing.T) {
	where, args, lines := example(t, "$ hopbench run --dry-run typo.yaml")
	typo := specBlock(t, "typo.yaml")
	t.Chdir(t.TempDir())
	if err := os.WriteFile("typo.yaml", []byte(typo), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, args...)
	if err == nil || cli.ExitCode(err) != 2 {
		t.Fatalf("%v (exit %d), want a usage error", err, cli.ExitCode(err))
	}
	follows(t, where, lines, "hopbench: "+err.Error())
}

// The page's table is what the thresholds it names print on the runs it
// names.
func TestTheThresholdsPagesTableIsWhatJudgePrints(t *testing.T) {
	where, _, _ := example(t, "thresholds: ")
	recs, _, err := results.Read("../compare/testdata/a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var rules threshold.Rules
	if err := yaml.Unmarshal([]byte(`{p50: "< 1ms", rps: "> 2200"}`), &rules); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := check.Table(&out, "thresholds", threshold.Judge(rules, recs)); err != nil {
		t.Fatal(err)
	}
	follows(t, where, where.lines, out.String())
}

// Every threshold key and every metric the gate takes is documented.
func TestEveryKeyIsDocumented(t *testing.T) {
	for page, keys := range map[string][]string{thresholdsPage: threshold.Keys(), "../../docs/compare.md": gateKeys()} {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if !strings.Contains(string(data), "`"+k+"`") {
				t.Errorf("%s does not document `%s`", docName(page), k)
			}
		}
	}
}

func gateKeys() []string {
	var keys []string
	for _, m := range compare.Metrics {
		keys = append(keys, m.Key)
	}
	return keys
}

// The GitHub Actions workflow under docs/ and the commands docs/ci.md
// shows are hopbench commands with flags they have, and their gates
// parse.
func TestTheCIWorkflowsCommandsParse(t *testing.T) {
	data, err := os.ReadFile("../../docs/ci/hopbench-gate.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			lines = append(lines, strings.Split(strings.TrimSpace(s.Run), "\n")...)
		}
	}
	for _, b := range fencedBlocks(t, "../../docs/ci.md") {
		lines = append(lines, b.lines...)
	}
	commands := map[string]bool{}
	for _, l := range lines {
		fields := strings.Fields(l)
		if len(fields) == 0 || filepath.Base(fields[0]) != "hopbench" {
			continue
		}
		c, rest, err := cli.Commands().Find(fields[1:])
		if err == nil {
			err = c.ParseFlags(rest)
		}
		if f := c.Flags().Lookup("fail-on"); err == nil && f != nil && f.Changed {
			_, err = compare.ParseFailOn(f.Value.String())
		}
		if err != nil {
			t.Errorf("%q: %v", l, err)
		}
		commands[c.Name()] = true
	}
	if !commands["run"] || !commands["compare"] {
		t.Errorf("the workflow and page run %v; want run and compare", commands)
	}
}

// docs/mesh.md's spec parses as written: two stacks, three proxy
// settings (none among them).
func TestTheMeshPagesSpecParses(t *testing.T) {
	s, err := experiment.Parse([]byte(pageBlock(t, "../../docs/mesh.md", "mesh-example.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	if runs := s.Runs(); len(runs) != 6 {
		t.Fatalf("%d runs, want 6 (2 stacks × 3 proxies)", len(runs))
	}
}
