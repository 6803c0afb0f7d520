package compare

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/check"
	"github.com/hopbench/hopbench/internal/results"
)

func TestFailOnReadsSignedTolerances(t *testing.T) {
	tols, err := ParseFailOn("p99:+10%,rps:-5%, client_cpu:+20.5%")
	if err != nil {
		t.Fatal(err)
	}
	want := []Tolerance{{"p99", 0.10, "p99:+10%"}, {"rps", -0.05, "rps:-5%"}, {"client_cpu", 0.205, "client_cpu:+20.5%"}}
	if len(tols) != len(want) {
		t.Fatalf("%+v", tols)
	}
	for i := range want {
		if d := tols[i].Change - want[i].Change; tols[i].Key != want[i].Key || tols[i].Text != want[i].Text || d > 1e-12 || d < -1e-12 {
			t.Errorf("%d: %+v, want %+v", i, tols[i], want[i])
		}
	}
}

func TestFailOnThatDoesNotParseNamesItsColumn(t *testing.T) {
	for s, want := range map[string]string{
		"p99:10%":         `column 5: "10%": want a signed change in %`,
		"p99:+10%,rps:-5": `column 14: "-5": want a signed change in %`,
		"p98:+10%":        `column 1: "p98" is not a metric compare gates (known: rps, msgs, p50, p99, first_p50, client_cpu)`,
		"p50":             "column 4: want a colon",
		"p50:+1%,p50:+2%": "column 9: p50 is given twice",
	} {
		if _, err := ParseFailOn(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v; want %q", s, err, want)
		}
	}
}

// gate compares two record sets of testdata and holds them to failOn.
func gate(t *testing.T, a, b, failOn string) []check.Check {
	t.Helper()
	tols, err := ParseFailOn(failOn)
	if err != nil {
		t.Fatal(err)
	}
	checks, err := Compare(read(t, a), read(t, b), 0).Gate(tols)
	if err != nil {
		t.Fatal(err)
	}
	return checks
}

// slower.jsonl is b.jsonl's runs made 30 % slower by arithmetic
// (testdata/same.yaml says how), five runs a side against a5.jsonl: p50
// rises past 10 %, significantly, and the gate fails; req/s falls by a
// quarter, past 5 %.
func TestAThirtyPercentSlowerSetFailsTheGate(t *testing.T) {
	checks := gate(t, "testdata/a5.jsonl", "testdata/slower.jsonl", "p50:+10%,rps:-5%,p99:+100%")
	byName := map[string]check.Check{}
	for _, c := range checks {
		byName[c.Name+" "+strings.Fields(c.Subject)[0]] = c
	}
	rest := byName["p50:+10% rest+proto"] // both sets ran both stacks: matched on, not compared
	if len(checks) != 6 {
		t.Fatalf("%d checks, want 2 configurations × 3 tolerances: %+v", len(checks), checks)
	}
	failed := 0
	for _, c := range checks {
		if c.Outcome == check.Fail {
			failed++
			if !strings.Contains(c.Why, "a significant change (Mann–Whitney U, p=") || !strings.Contains(c.Why, "past") {
				t.Errorf("a failed check says no test: %s", c.Summary())
			}
		}
		if strings.HasPrefix(c.Name, "p99:+100%") && c.Outcome == check.Fail {
			t.Errorf("p99 rose 30 %%, within +100 %%: %s", c.Summary())
		}
	}
	if failed < 2 || !check.Failed(checks) {
		t.Errorf("%d failed; want at least rest+proto's p50 and req/s:\n%s", failed, summaries(checks))
	}
	if rest.Runs != 5 || rest.Figure < 20 || rest.Figure > 60 {
		t.Errorf("p50's change %v over %d runs: want about +30 %% over 5", rest.Figure, rest.Runs)
	}
}

// Two runs of one build, one after the other: nothing changes
// significantly, so nothing fails, at any tolerance.
func TestTwoRunsOfOneBuildPassTheGate(t *testing.T) {
	checks := gate(t, "testdata/a.jsonl", "testdata/b.jsonl", "p50:+1%,p99:+1%,rps:-1%,client_cpu:+1%")
	if len(checks) != 8 || check.Failed(checks) {
		t.Errorf("want 8 checks, none failed:\n%s", summaries(checks))
	}
	for _, c := range checks {
		if c.Outcome != check.Pass || !strings.Contains(c.Why, "no significant change") {
			t.Errorf("%s", c.Summary())
		}
	}
}

// Fewer than 4 runs a side cannot show a change: undecided, not failed.
func TestTooFewRunsAreUndecided(t *testing.T) {
	a, b := read(t, "testdata/a5.jsonl")[:6], read(t, "testdata/slower.jsonl")[:6] // three runs of each case
	tols, _ := ParseFailOn("p50:+10%")
	checks, err := Compare(a, b, 0).Gate(tols)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if c.Outcome != check.Undecided || !strings.Contains(c.Why, "3 and 3 runs: 4 or more a side") {
			t.Errorf("%s", c.Summary())
		}
	}
	if _, err := Compare(a, b, 0).Gate([]Tolerance{{Key: "msgs", Change: -0.1, Text: "msgs:-10%"}}); err == nil || !strings.Contains(err.Error(), "no configuration measured in both sets has msgs") {
		t.Errorf("a gate on a metric no run has: %v", err)
	}
}

// B's calls failing is the worst regression: every run of one B
// configuration failed (its calls, as a run whose node is down), so that
// configuration is A's only, and one run of the other partly failed. The
// gate fails each, whatever the tolerances say of the rest.
func TestAGateFailsWhenBsCallsFailed(t *testing.T) {
	a, b := read(t, "testdata/a.jsonl"), read(t, "testdata/b.jsonl")
	gone := b[0].Stack
	var other string
	for i := range b {
		switch {
		case b[i].Stack == gone:
			b[i].Outcome, b[i].Errors = results.OutcomeFailed, b[i].Requests
		case other == "":
			other = b[i].Case
			b[i].Outcome, b[i].Errors, b[i].ErrorsByClass = results.OutcomeErrors, b[i].Requests/3, map[string]int64{"timeout": b[i].Requests / 3}
			b[i].MarkFailures()
		}
	}
	tols, _ := ParseFailOn("p50:+50%")
	checks, err := Compare(a, b, 0).Gate(tols)
	if err != nil {
		t.Fatal(err)
	}
	var fellFor, onlyA bool
	for _, c := range checks {
		if c.Outcome != check.Fail {
			continue
		}
		fellFor = fellFor || strings.Contains(c.Subject, other)
		onlyA = onlyA || (c.Name == "B measured A's configurations" && strings.Contains(c.Subject, gone))
	}
	if !fellFor || !onlyA || !check.Failed(checks) {
		t.Errorf("B's failed runs (all of %s; one of %s) pass the gate:\n%s", gone, other, summaries(checks))
	}
}

func summaries(checks []check.Check) string {
	var s []string
	for _, c := range checks {
		s = append(s, c.Summary())
	}
	return strings.Join(s, "\n")
}
