package expdoc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/reference"
)

// trialFields are what a trial may be picked by.
var trialFields = map[string]func(stack string, t evolution.Trial) string{
	"stack":   func(s string, _ evolution.Trial) string { return s },
	"codec":   func(_ string, t evolution.Trial) string { return t.Codec },
	"change":  func(_ string, t evolution.Trial) string { return t.Change },
	"path":    func(_ string, t evolution.Trial) string { return t.Path },
	"count":   func(_ string, t evolution.Trial) string { return strconv.Itoa(t.Count) },
	"outcome": func(_ string, t evolution.Trial) string { return string(t.Outcome) },
	"others":  func(_ string, t evolution.Trial) string { return string(t.Others) },
}

// pickTrials are the schema trials of the experiment's runs matching
// every "key=value" of where (keys: trialFields).
func (d *Doc) pickTrials(name string, where []string) ([]evolution.Trial, error) {
	e, err := d.exp(name)
	if err != nil {
		return nil, err
	}
	var out []evolution.Trial
	for _, r := range e.recs {
		for _, t := range r.Evolution {
			ok := true
			for _, w := range where {
				k, v, _ := strings.Cut(w, "=")
				f, known := trialFields[k]
				if !known {
					return nil, fmt.Errorf("trial key %q: want stack, codec, change, path, count, outcome or others", k)
				}
				ok = ok && f(r.Stack, t) == v
			}
			if ok {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// Corruption is what a corrupted trial sent and got back, as prose
// writes them (3 000 000 000, −1 294 967 296).
type Corruption struct{ Sent, Got string }

// prose writes an integer as prose does; anything else as it is.
func prose(v string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return v
	}
	return strings.Replace(groupThousands(float64(n)), "-", "−", 1)
}

// corruption reads the first trial where picks whose changed field came
// back with another value: "3000000000 came back as -1294967296".
func (d *Doc) corruption(name string, where ...string) (Corruption, error) {
	ts, err := d.pickTrials(name, append(where, "outcome="+string(evolution.Corrupted)))
	if err != nil {
		return Corruption{}, err
	}
	for _, t := range ts {
		_, detail, _ := strings.Cut(t.Detail, ": ")
		if sent, got, ok := strings.Cut(detail, " came back as "); ok {
			return Corruption{Sent: prose(sent), Got: prose(got)}, nil
		}
	}
	return Corruption{}, fmt.Errorf("%s: no corrupted trial with %s says what came back", name, strings.Join(where, " "))
}

// outcomeTally counts the study's outcome findings (the schema trials')
// by verdict: "5 of 6 hold, 1 does not".
func (d *Doc) outcomeTally(name string) (string, error) {
	e, err := d.exp(name)
	if err != nil {
		return "", err
	}
	var n, holds int
	for _, r := range e.rows {
		if r.Finding.Here.Outcome() {
			n++
			if r.Verdict == reproduce.Holds {
				holds++
			}
		}
	}
	if n == 0 {
		return "", fmt.Errorf("%s judges no outcome finding", name)
	}
	s := fmt.Sprintf("%d of %d hold", holds, n)
	if holds < n {
		s += fmt.Sprintf(", %d does not", n-holds)
		if n-holds > 1 {
			s = strings.Replace(s, "does not", "do not", 1)
		}
	}
	return s, nil
}

// Delivered is a "delivered" finding's two sides: runs that delivered a
// reply of the runs made, and Fisher's exact test's p-value on them.
type Delivered struct {
	Num, NumRuns, Den, DenRuns int
	P                          float64
}

// delivered reads a finding judged on replies delivered (reproduce's
// MeasureDelivered) back as counts.
func (d *Doc) delivered(name, id string) (Delivered, error) {
	row, err := d.finding(name, id)
	if err != nil {
		return Delivered{}, err
	}
	if row.Finding.Here.Measure != reproduce.MeasureDelivered || row.Verdict == reproduce.NotMeasured {
		return Delivered{}, fmt.Errorf("%s: %s is not judged on replies delivered", name, id)
	}
	yes := func(runs []float64) (n int) {
		for _, v := range runs {
			n += int(v)
		}
		return n
	}
	out := Delivered{Num: yes(row.Num.Runs), NumRuns: len(row.Num.Runs), Den: yes(row.Den.Runs), DenRuns: len(row.Den.Runs)}
	out.P = reproduce.FisherExact(out.Num, out.NumRuns-out.Num, out.Den, out.DenRuns-out.Den)
	return out, nil
}

// replies counts the runs that delivered a reply, as the verdicts judge
// an "it completed" claim (reproduce.MeasureDelivered: a run killed after
// its first reply delivered it), of the one case the selector picks
// (reproduce's selector keys: part, stack, count, runtime, ...).
func (d *Doc) replies(name string, sel ...string) (int, error) {
	e, err := d.exp(name)
	if err != nil {
		return 0, err
	}
	m := map[string]string{}
	for _, s := range sel {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return 0, fmt.Errorf("selector %q: want key=value", s)
		}
		m[k] = v
	}
	f := reference.Finding{ID: "replies", HoldsWhen: reference.Less, Here: reference.Here{Measure: reproduce.MeasureDelivered, Num: m, Den: m}}
	row := reproduce.Check(&reference.Study{Study: name, Findings: []reference.Finding{f}}, e.m)[0]
	if row.Verdict == reproduce.NotMeasured {
		return 0, fmt.Errorf("%s: replies of %s: %s", name, strings.Join(sel, " "), row.Why)
	}
	n := 0
	for _, v := range row.Num.Runs {
		n += int(v)
	}
	return n, nil
}
