package reproduce

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/reference"
)

// absoluteFinding claims that rest's p50 less rest+proto's, in part, is
// below (or about) a figure.
func absoluteFinding(part string, a reference.Absolute) reference.Finding {
	return reference.Finding{ID: part, Claim: part, Absolute: &a, Stated: &reference.Stated{Quote: "q", Where: "w"},
		Here: reference.Here{Measure: "p50", Num: map[string]string{"part": part, "stack": "rest"}, Den: map[string]string{"part": part, "stack": "rest+proto"}}}
}

// An absolute claim is judged on its interval: wholly on the claim's side
// holds, wholly on the other does not, across the figure is undecided.
func TestAnAbsoluteClaimPlacesItsIntervalAgainstTheFigure(t *testing.T) {
	var recs []results.Record
	proto := []int64{500, 510, 490, 505, 495}
	for part, rest := range map[string][]int64{
		"under":    {1000, 1010, 990, 1005, 995},        // 0.5 ms
		"over":     {5000, 5010, 4990, 5005, 4995},      // 4.5 ms
		"straddle": {1200, 4200, 2600, 1500, 3600},      // about 2 ms, widely spread
		"about":    {5500, 5510, 5490, 5505, 5495},      // 5 ms
		"far":      {20500, 20510, 20490, 20505, 20495}, // 20 ms
	} {
		recs = append(recs, runs(part, "rest", rest...)...)
		recs = append(recs, runs(part, "rest+proto", proto...)...)
	}
	recs = append(recs, runs("few", "rest", 1000, 1000)...)
	recs = append(recs, runs("few", "rest+proto", 500, 500)...)
	below := reference.Absolute{Below: 2, Unit: "ms"}
	about := reference.Absolute{About: 5, Unit: "ms"}
	rows := Check(study(
		absoluteFinding("under", below), absoluteFinding("over", below), absoluteFinding("straddle", below),
		absoluteFinding("about", about), absoluteFinding("far", about), absoluteFinding("few", below),
		absoluteFinding("under", reference.Absolute{Below: 2, Unit: "B"}),
	), Measured{Records: recs})
	want := []Verdict{Holds, DoesNotHold, Inconclusive, Holds, DoesNotHold, Inconclusive, NotMeasured}
	for i, w := range want {
		if r := rows[i]; r.Verdict != w {
			t.Errorf("%s %v: %s (%s), interval %v to %v; want %s", r.Finding.ID, *r.Finding.Absolute, r.Verdict, r.Why, r.Low, r.High, w)
		}
	}
	if r := rows[0]; r.Amount < 0.49 || r.Amount > 0.51 || r.Low <= 0 || r.High >= 2 {
		t.Errorf("under: %v ms, %v to %v", r.Amount, r.Low, r.High)
	}
	if here, ci, ok := rows[0].FigureCells(); !ok || !strings.HasSuffix(here, "ms (a difference)") || !strings.HasSuffix(ci, " ms") {
		t.Errorf("cells %q %q", here, ci)
	}
}

// casesFinding claims grpc has the lowest p50 of three stacks in count of
// the parts.
func casesFinding(count int, atLeast bool, parts ...string) reference.Finding {
	var of []map[string]string
	for _, p := range parts {
		of = append(of, map[string]string{"part": p})
	}
	return reference.Finding{ID: "c", Claim: "c", HoldsWhen: reference.Less, Stated: &reference.Stated{Quote: "q", Where: "w"},
		Rank:  &reference.Rank{Among: []string{"rest", "grpc", "graphql"}, First: "lowest", Paper: "p"},
		Cases: &reference.Cases{Of: of, Count: count, AtLeast: atLeast},
		Here:  reference.Here{Measure: "p50", Num: map[string]string{"stack": "grpc"}}}
}

// A count claim ranks each case as a superlative is: exactly the count
// decided holds, more (or too many others) does not, an open case that
// could change it leaves it undecided, and no case measured is not
// measured.
func TestACountOfCasesRanksEachCase(t *testing.T) {
	var recs []results.Record
	steady := func(v int64) []int64 { return []int64{v, v + 10, v - 10, v + 5, v - 5} }
	for _, p := range []string{"a", "b"} { // grpc clearly first
		recs = append(recs, runs(p, "grpc", steady(500)...)...)
		recs = append(recs, runs(p, "rest", steady(1000)...)...)
		recs = append(recs, runs(p, "graphql", steady(2000)...)...)
	}
	recs = append(recs, runs("c", "rest", steady(500)...)...) // rest clearly first
	recs = append(recs, runs("c", "grpc", steady(1000)...)...)
	recs = append(recs, runs("c", "graphql", steady(2000)...)...)
	recs = append(recs, runs("d", "grpc", 500, 1500, 900, 1200, 700)...) // no one clearly first
	recs = append(recs, runs("d", "rest", 600, 1400, 1000, 1100, 800)...)
	recs = append(recs, runs("d", "graphql", steady(2000)...)...)
	rows := Check(study(
		casesFinding(2, false, "a", "b", "c"),
		casesFinding(3, false, "a", "b", "c"),
		casesFinding(1, false, "a", "b", "d"),
		casesFinding(2, false, "a", "b", "d"),
		casesFinding(2, true, "a", "b", "d"),
		casesFinding(1, false, "x", "y"),
	), Measured{Records: recs})
	want := []struct {
		v      Verdict
		figure string
	}{
		{Holds, "grpc lowest in 2 of 3 cases"},
		{DoesNotHold, "grpc lowest in 2 of 3 cases"},  // c is rest's: 3 of 3 cannot be
		{DoesNotHold, "grpc lowest in 2 of 3 cases"},  // already more than 1
		{Inconclusive, "grpc lowest in 2 of 3 cases"}, // d could make it 3
		{Holds, "grpc lowest in 2 of 3 cases"},        // at least 2: d cannot undo it
		{NotMeasured, "grpc lowest in 0 of 2 cases"},
	}
	for i, w := range want {
		if r := rows[i]; r.Verdict != w.v || r.Figure != w.figure {
			t.Errorf("case %d: %s, %q (%s); want %s, %q", i, r.Verdict, r.Figure, r.Why, w.v, w.figure)
		}
	}
	if !strings.Contains(rows[0].Why, "another: part=c (rest lowest)") || !strings.Contains(rows[3].Why, "undecided: part=d (inconclusive)") {
		t.Errorf("why: %q / %q", rows[0].Why, rows[3].Why)
	}
}

// A claim no measure reads is typed in all the same, and reads "not
// measured" with what would measure it.
func TestAClaimNoMeasureReadsIsNotMeasured(t *testing.T) {
	f := reference.Finding{ID: "n", Claim: "n", Stated: &reference.Stated{Quote: "q", Where: "w"}, Here: reference.Here{Needs: "a ramp to 200 clients"}}
	r := Check(study(f), Measured{})[0]
	if r.Verdict != NotMeasured || !strings.HasSuffix(r.Why, "a ramp to 200 clients") {
		t.Errorf("%s (%s)", r.Verdict, r.Why)
	}
}

// An interaction of exact measures (bytes) needs no runs and no interval:
// its ratio decides.
func TestAnExactInteractionNeedsNoRuns(t *testing.T) {
	recs := []results.Record{
		rec("big", "rest+proto", 5, "", results.OutcomeOK, 1, 50), rec("big", "rest", 5, "", results.OutcomeOK, 1, 100),
		rec("small", "rest+proto", 5, "", results.OutcomeOK, 1, 90), rec("small", "rest", 5, "", results.OutcomeOK, 1, 100),
	}
	sel := func(part, stack string) map[string]string { return map[string]string{"part": part, "stack": stack} }
	f := directionOnly(finding("grows", "request_wire_bytes", reference.Less, sel("big", "rest+proto"), sel("big", "rest")))
	f.Here.Num2, f.Here.Den2 = sel("small", "rest+proto"), sel("small", "rest")
	g := f
	g.HoldsWhen = reference.Greater
	rows := Check(study(f, g), Measured{Records: recs})
	if r := rows[0]; r.Verdict != Holds || r.Test != "exact measure" || r.Ratio < 0.55 || r.Ratio > 0.56 {
		t.Errorf("less: %s ×%v (%s)", r.Verdict, r.Ratio, r.Test)
	}
	if r := rows[1]; r.Verdict != DoesNotHold {
		t.Errorf("greater: %s", r.Verdict)
	}
}
