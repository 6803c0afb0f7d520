package reproduce

import (
	"math"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/reference"
)

func ramp(shares ...float64) *results.Record {
	r := &results.Record{Figures: results.Figures{ErrorsByClass: map[string]int64{}}}
	for i, sh := range shares {
		late := int64(math.Round(100 * (1 - sh)))
		r.Steps = append(r.Steps, results.Step{Value: float64(20 * (i + 1)), Requests: 100, Errors: late, WithinSLA: sh})
		r.Requests += 100
		r.Errors += late
		r.ErrorsByClass["over_sla"] += late
	}
	return r
}

func TestTheClientLimitIsWhereHalfTheRepliesComeLate(t *testing.T) {
	for _, c := range []struct {
		name   string
		r      *results.Record
		want   float64
		errHas string
	}{
		{"crossing between two steps", ramp(1, 1, 0.9, 0.1), 60 + 20*0.4/0.8, ""},
		{"exactly half is where it lies", ramp(1, 0.5, 0), 40, ""},
		{"below half from the first step", ramp(0, 0), 10, ""},
		{"never past it: the last step, a lower bound", ramp(1, 1, 0.8), 60, ""},
		{"not a ramp", &results.Record{}, 0, "not a ramp"},
	} {
		got, err := clientLimit(c.r)
		switch {
		case c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.errHas)
		case c.errHas == "" && (err != nil || math.Abs(got-c.want) > 1e-9):
			t.Errorf("%s: %g clients (%v), want %g", c.name, got, err, c.want)
		}
	}
	refused := ramp(1, 0.2)
	refused.ErrorsByClass["refused"], refused.Errors = 1, refused.Errors+1
	if _, err := clientLimit(refused); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a ramp with a refused call gave a limit: %v", err)
	}
}

// A claimed client limit is judged as an absolute figure, but a ramp
// that never passed its limit says only that it lies above the last
// step: that decides a claim whose band lies below the step, and leaves
// undecided one the ramp did not reach past.
func TestAClientLimitAboveTheRampsTopIsALowerBound(t *testing.T) {
	var recs []results.Record
	for part, shares := range map[string][]float64{
		"short": {1, 1, 1},           // 20-60 clients, never past: above 60
		"tall":  {1, 1, 1, 1, 1, 1},  // 20-120 clients, never past: above 120
		"met":   {1, 1, 1, 0.6, 0.4}, // crosses at 90
	} {
		for i := range 4 {
			r := rec(part, "rest", 5, "", results.OutcomeOK, 1000, 1)
			r.Repetition = i
			one := ramp(shares...)
			r.Steps, r.Requests, r.Errors, r.ErrorsByClass = one.Steps, one.Requests, one.Errors, one.ErrorsByClass
			recs = append(recs, r)
		}
	}
	limit := func(part string, about float64) reference.Finding {
		return reference.Finding{ID: part, Claim: part, Absolute: &reference.Absolute{About: about, Unit: "clients"}, Stated: &reference.Stated{Quote: "q", Where: "w"},
			Here: reference.Here{Measure: MeasureClientLimit, Num: map[string]string{"part": part, "stack": "rest"}}}
	}
	rows := Check(study(limit("short", 80), limit("tall", 80), limit("met", 90), limit("met", 140)), Measured{Records: recs})
	for i, w := range []Verdict{Inconclusive, DoesNotHold, Holds, DoesNotHold} {
		if r := rows[i]; r.Verdict != w {
			t.Errorf("%s about %v: %s (%s), %v clients; want %s", r.Finding.ID, r.Finding.Absolute.About, r.Verdict, r.Why, r.Amount, w)
		}
	}
	if !strings.Contains(rows[0].Why, "up to 60 clients") || !strings.Contains(rows[1].Why, "lower bound") {
		t.Errorf("a lower bound's verdict does not say where the ramp ended: %q, %q", rows[0].Why, rows[1].Why)
	}
}
