package threshold_test

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hopbench/hopbench/internal/check"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/threshold"
)

func TestLimitsReadInTheirKeysUnits(t *testing.T) {
	for _, c := range []struct {
		key, text string
		op        string
		value     float64
	}{
		{"p99", "< 10ms", "<", 10_000}, {"p50", "<=250us", "<=", 250}, {"p99.9", "< 1.5 s", "<", 1_500_000}, {"p50", "< 800µs", "<", 800},
		{"errors", "< 0.1%", "<", 0.1}, {"rps", "> 5k", ">", 5000}, {"capacity", ">= 1.2M", ">=", 1.2e6}, {"good_rps", "> 900", ">", 900},
		{"bytes", "< 2KB", "<", 2000}, {"memory", "< 64MiB", "<", 64 << 20}, {"bytes", "< 700", "<", 700}, {"cpu", "< 200µs", "<", 200},
	} {
		l, err := threshold.ParseLimit(c.key, c.text)
		if err != nil || l.Op != c.op || l.Value != c.value {
			t.Errorf("%s %q: %+v, %v; want %s %v", c.key, c.text, l, err, c.op, c.value)
		}
	}
}

// A limit that does not parse is refused with the column where it goes
// wrong and what was expected there.
func TestALimitThatDoesNotParseNamesItsColumnAndWhatIsExpected(t *testing.T) {
	for _, c := range []struct {
		key, text string
		want      []string
	}{
		{"p99", "< 10 mss", []string{`"< 10 mss"`, "column 6", `"mss"`, "want a unit of time: ms, µs (or us) or s"}},
		{"p99", "10ms", []string{"column 1", "want a comparison first"}},
		{"p99", "< fast", []string{"column 3", "want a number after <"}},
		{"errors", "< 0.1", []string{"column 6", "want a percentage"}},
		{"rps", "> 5 kilo", []string{"column 5", `"kilo"`}},
		{"p98", "< 10ms", []string{"p98: not a threshold key", "p99.9"}},
	} {
		_, err := threshold.ParseLimit(c.key, c.text)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s %q: %v; want it to say %s", c.key, c.text, err, w)
			}
		}
	}
	_, err := threshold.ParseFlag("p99<10 mss")
	if err == nil || !strings.Contains(err.Error(), `--threshold: p99: "p99<10 mss": column 8: "mss"`) {
		t.Errorf("--threshold p99<10 mss: %v; want its column in the flag's value (8)", err)
	}
}

func parseRules(t *testing.T, text string) threshold.Rules {
	t.Helper()
	var rs threshold.Rules
	if err := yaml.Unmarshal([]byte(text), &rs); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return rs
}

func TestRulesAreAMappingForEveryCaseOrAListThatSelects(t *testing.T) {
	one := parseRules(t, `{p99: "< 10ms", errors: "< 0.1%"}`)
	if len(one) != 1 || len(one[0].Limits) != 2 || !one[0].Selects("grpc", "chain:5") || one[0].Where != "thresholds" {
		t.Errorf("a mapping: %+v", one)
	}
	two := parseRules(t, "- {p99: \"< 10ms\"}\n- {stacks: [grpc], topologies: [direct], p50: \"< 2ms\"}\n")
	if len(two) != 2 || two[1].Where != "thresholds[1]" || !two[1].Selects("grpc", "direct") || two[1].Selects("rest", "direct") || two[1].Selects("grpc", "chain:2") {
		t.Errorf("a list: %+v", two)
	}
}

// Before anything runs: a selection that selects no case, and a key no
// selected case records, are refused.
func TestRulesOnFiguresNoCaseRecordsAreRefused(t *testing.T) {
	run := []threshold.Subject{{Stack: "rest", Topology: "direct", Nodes: true}, {Stack: "grpc", Topology: "direct", Nodes: true}}
	load := []threshold.Subject{{Stack: "rest", Topology: "direct"}}
	for _, c := range []struct {
		rules string
		cases []threshold.Subject
		want  string // "" for none
	}{
		{`{p99: "< 10ms", cpu: "< 1ms", memory: "< 100MB"}`, run, ""},
		{`{capacity: "> 5000"}`, run, "only a capacity search"},
		{`{capacity: "> 5000"}`, []threshold.Subject{{Stack: "rest", Capacity: true}}, ""},
		{`[{stacks: [graphql], p99: "< 10ms"}]`, run, "select none of the cases"},
		{`{cpu: "< 100us"}`, load, "hopbench load does not measure the node"},
		{`{client_cpu: "< 100us", bytes: "< 2KB"}`, load, ""},
	} {
		err := parseRules(t, c.rules).Check(c.cases)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v; want %q", c.rules, err, c.want)
		}
	}
}

// caseRuns reads compare's recorded runs of one case (six repetitions of
// rest+proto or graphql, one after another) from a.jsonl.
func caseRuns(t *testing.T, stack string) []results.Record {
	t.Helper()
	recs, _, err := results.Read("../compare/testdata/a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out []results.Record
	for _, r := range recs {
		if r.Stack == stack {
			out = append(out, r)
		}
	}
	if len(out) != 6 {
		t.Fatalf("%d runs of %s in a.jsonl, want 6", len(out), stack)
	}
	return out
}

func judgeOne(t *testing.T, rule string, recs []results.Record) check.Check {
	t.Helper()
	checks := threshold.Judge(parseRules(t, rule), recs)
	if len(checks) != 1 {
		t.Fatalf("%s: %d checks, want 1: %+v", rule, len(checks), checks)
	}
	return checks[0]
}

// rest+proto's p50 over its six recorded runs is 387.5 µs (334 to 418):
// a limit far above passes, far below fails, and one at the median,
// which noise alone would decide, is undecided.
func TestAThresholdIsJudgedOnTheMediansInterval(t *testing.T) {
	runs := caseRuns(t, "rest+proto")
	for _, c := range []struct {
		rule string
		want check.Outcome
	}{
		{`{p50: "< 1ms"}`, check.Pass}, {`{p50: "< 300us"}`, check.Fail}, {`{p50: "< 390us"}`, check.Undecided},
		{`{p50: "> 390us"}`, check.Undecided}, {`{rps: "> 1000"}`, check.Pass}, {`{errors: "< 0.1%"}`, check.Pass},
	} {
		c2 := judgeOne(t, c.rule, runs)
		if c2.Outcome != c.want || c2.Runs != 6 || !c2.Measured {
			t.Errorf("%s: %s (%s); want %s over 6 runs", c.rule, c2.Outcome, c2.Summary(), c.want)
		}
	}
	c := judgeOne(t, `{p50: "< 390us"}`, runs)
	if c.Figure != 387.5 || c.Low > 387.5 || c.High < 390 || c.Low < 334 || c.High > 418 {
		t.Errorf("p50 %v [%v, %v]: want the median 387.5 inside an interval within the runs' range that holds 390", c.Figure, c.Low, c.High)
	}
	if !strings.Contains(c.Why, "95% interval of the median of 6 runs holds the limit") {
		t.Errorf("why: %s", c.Why)
	}
}

// With fewer than 4 runs a threshold passes or fails only when every run
// is on the same side of it.
func TestWithFewerThanFourRunsEveryRunMustBeOnOneSide(t *testing.T) {
	runs := caseRuns(t, "rest+proto")[:3] // p50 400, 334, 418 µs
	for rule, want := range map[string]check.Outcome{
		`{p50: "< 420us"}`: check.Pass, `{p50: "< 330us"}`: check.Fail, `{p50: "< 401us"}`: check.Undecided,
	} {
		if c := judgeOne(t, rule, runs); c.Outcome != want || c.Low != 334 || c.High != 418 {
			t.Errorf("%s: %s [%v, %v]; want %s on the range 334 to 418", rule, c.Outcome, c.Low, c.High, want)
		}
	}
}

// A run whose calls failed has no latency figure: a latency threshold on
// its case fails, saying why, where its error rate is still judged.
func TestARunWithoutAFigureFailsALatencyThreshold(t *testing.T) {
	runs := caseRuns(t, "rest+proto")
	failed := &runs[2]
	failed.Outcome, failed.Reason = results.OutcomeCallsFailed, "every call was refused"
	failed.Errors = failed.Requests
	failed.Withhold()
	c := judgeOne(t, `{p50: "< 1ms"}`, runs)
	if c.Outcome != check.Fail || c.Measured || !strings.Contains(c.Why, "1 of 6 runs have no p50 figure") || !strings.Contains(c.Why, "calls failed: every call was refused") {
		t.Errorf("%s", c.Summary())
	}
	// Five runs at 0 % and one at 100 %: the median's interval reaches
	// past the limit (a resample with three of the six draws the failed
	// run has a median of 50 %).
	if c := judgeOne(t, `{errors: "< 0.1%"}`, runs); c.Outcome != check.Undecided || !c.Measured || c.High < 50 {
		t.Errorf("errors over runs one of which failed every call: %s; want its 100%% counted", c.Summary())
	}
}

// A rule applies to the cases it selects; a capacity to capacity searches.
func TestJudgeHoldsTheCasesEachRuleSelects(t *testing.T) {
	recs := append(caseRuns(t, "rest+proto"), caseRuns(t, "graphql")...)
	checks := threshold.Judge(parseRules(t, "- {p50: \"< 1ms\"}\n- {stacks: [graphql], p99: \"< 2ms\", capacity: \"> 10\"}\n"), recs)
	var got []string
	for _, c := range checks {
		got = append(got, c.Name+" on "+strings.Fields(c.Subject)[0]+": "+string(c.Outcome))
	}
	want := "p50 < 1ms on rest+proto: pass; p50 < 1ms on graphql: fail; p99 < 2ms on graphql: fail"
	if strings.Join(got, "; ") != want {
		t.Errorf("got %s\nwant %s", strings.Join(got, "; "), want)
	}
}
