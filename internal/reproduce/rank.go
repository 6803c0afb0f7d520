package reproduce

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/reference"
)

// rank judges a superlative: every contender measured and ranked; the
// named stack must be first of all, significantly ahead of the runner-up
// here; its degree is judged on the paper's pair (the named stack over
// the paper's runner-up, when the study names one); and a stack the
// claim names last must be last of all.
func (m Measured) rank(row *Row) {
	f := row.Finding
	named := f.Here.Num["stack"]
	vals, missing, err := m.contenders(f)
	if err != nil {
		row.Verdict, row.Why = NotMeasured, err.Error()
		return
	}
	row.Ranking = rankingText(vals, missing)
	dir := reference.Less
	if f.Rank.First == "highest" {
		dir = reference.Greater
	}
	if vals[0].Stack != named {
		i := slices.IndexFunc(vals, func(v Value) bool { return v.Stack == named })
		row.Num, row.Den = vals[i], vals[0]
		row.judge(dir) // the leader ahead: the ratio points the other way
		if row.Verdict == Inconclusive {
			row.Why = fmt.Sprintf("%s ranks %s here, behind %s, but not significantly: %s", named, ordinal(i+1), vals[0].Stack, row.Why)
		}
		row.judgeLast(vals, f.Rank.Last, dir)
		return
	}
	row.Num, row.Den = vals[0], vals[1]
	row.judge(dir)
	if paired := byStack(vals, f.Rank.RunnerUp); paired != nil && paired.Stack != vals[1].Stack && significantlyAhead(row.Verdict) {
		// First of all here; the degree is the paper's pair's.
		ahead := fmt.Sprintf("first, significantly ahead of %s (%s); the degree is judged against the paper's runner-up, %s", vals[1].Stack, row.Test, paired.Stack)
		row.Den = *paired
		row.judge(dir)
		row.Why = strings.TrimPrefix(row.Why+"; "+ahead, "; ")
	}
	if len(missing) > 0 && significantlyAhead(row.Verdict) {
		// A stack left out, often for failed calls, may be the one
		// ahead: first of those measured is not first of all.
		row.Verdict, row.Degree = Inconclusive, ""
		row.Why = "first of the stacks measured, but " + strings.Join(missing, ", ") + " could not be measured: the ranking is not complete"
	}
	row.judgeLast(vals, f.Rank.Last, dir)
}

// contenders are the rank's stacks measured, first to last, and those
// that could not be; an error when the named stack, or all but one,
// could not be measured.
func (m Measured) contenders(f reference.Finding) ([]Value, []string, error) {
	named := f.Here.Num["stack"]
	var vals []Value
	var missing []string
	for _, st := range f.Rank.Among {
		sel := maps.Clone(f.Here.Num)
		sel["stack"] = st
		v, err := m.value(f.Here.Measure, sel)
		if err != nil {
			if st == named {
				return nil, nil, err
			}
			missing = append(missing, st)
			continue
		}
		v.Stack = st
		vals = append(vals, v)
	}
	if len(vals) < 2 {
		return nil, nil, fmt.Errorf("fewer than two of the stacks ranked were measured: %s", strings.Join(missing, ", "))
	}
	slices.SortStableFunc(vals, func(a, b Value) int {
		if f.Rank.First == "highest" {
			return cmp.Compare(b.V, a.V)
		}
		return cmp.Compare(a.V, b.V)
	})
	return vals, missing, nil
}

// judgeLast holds the claim's other end to the same rule as its first:
// the stack it names last must be last of all, significantly behind the
// one before it. A last that fails turns the row's verdict; one that
// cannot be told leaves the row inconclusive.
func (row *Row) judgeLast(vals []Value, last, dir string) {
	if last == "" || row.Verdict == NotMeasured {
		return
	}
	end := &Row{Finding: row.Finding}
	lastHere := vals[len(vals)-1]
	if lastHere.Stack == last {
		end.Num, end.Den = vals[len(vals)-2], lastHere // the one before ahead of the last, in the claim's direction
	} else {
		end.Num, end.Den = *byStack(vals, last), lastHere // the claim's last significantly ahead of the real last: not last
	}
	end.judge(dir)
	words := fmt.Sprintf("%s last here (%s; %s)", lastHere.Stack, end.Test, end.Verdict)
	switch {
	case row.Verdict == DoesNotHold:
		// The first end already fails; the other is told all the same.
		row.Why = strings.TrimPrefix(fmt.Sprintf("%s; the claim names %s last: %s", row.Why, last, words), "; ")
	case lastHere.Stack == last && significantlyAhead(end.Verdict):
		row.Why = strings.TrimPrefix(row.Why+"; "+last+" last of all, significantly", "; ")
	case lastHere.Stack != last && significantlyAhead(end.Verdict):
		row.Verdict, row.Degree = DoesNotHold, ""
		row.Why = strings.TrimSuffix(fmt.Sprintf("the claim names %s last, but %s; %s", last, words, row.Why), "; ")
	default:
		row.Verdict, row.Degree = Inconclusive, ""
		row.Why = strings.TrimSuffix(fmt.Sprintf("the claim names %s last: not decided, %s; %s", last, words, row.Why), "; ")
	}
}

// significantlyAhead says whether a verdict found the direction
// significant.
func significantlyAhead(v Verdict) bool {
	return v == Holds || v == DirectionOnly || v == DegreeUndecided
}

func byStack(vals []Value, stack string) *Value {
	if i := slices.IndexFunc(vals, func(v Value) bool { return v.Stack == stack }); i >= 0 && stack != "" {
		return &vals[i]
	}
	return nil
}

func rankingText(vals []Value, missing []string) string {
	var parts []string
	for _, v := range vals {
		parts = append(parts, fmt.Sprintf("%s %s", v.Stack, short(v.V)))
	}
	s := strings.Join(parts, ", ") + " " + vals[0].Unit
	if len(missing) > 0 {
		s += "; not measured: " + strings.Join(missing, ", ")
	}
	return s
}

func ordinal(n int) string {
	return map[int]string{1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}[n]
}
