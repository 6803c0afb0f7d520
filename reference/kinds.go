package reference

import (
	"fmt"
	"strings"
)

// validateUnmeasured checks a finding no measure reads yet: the text's
// words and place, and what would measure it; nothing that would look
// like a measurement.
func validateUnmeasured(c Finding) error {
	h := c.Here
	switch {
	case c.Stated == nil || c.Stated.Quote == "" || c.Stated.Where == "":
		return fmt.Errorf("here.needs: stated needs the text's quote and where")
	case h.Measure != "" || len(h.Num) > 0 || len(h.Den) > 0 || h.Interaction():
		return fmt.Errorf("here.needs: a finding no measure reads names no measure, num, den, num2 or den2")
	case c.Rank != nil || c.Absolute != nil || c.Cases != nil || c.Ratio != [2]string{}:
		return fmt.Errorf("here.needs: no rank, absolute, cases or ratio: nothing is judged")
	}
	return nil
}

// validateAbsolute checks a claim of an absolute figure: one bound, its
// unit, the text's words, and one measure of num (less den's).
func validateAbsolute(c Finding) error {
	a := c.Absolute
	switch {
	case (a.Below > 0) == (a.About > 0) || a.Below < 0 || a.About < 0:
		return fmt.Errorf("absolute: give one of below and about, a positive figure")
	case !contains(Units, a.Unit):
		return fmt.Errorf("absolute.unit %q (known: %s)", a.Unit, strings.Join(Units, ", "))
	case c.HoldsWhen != "":
		return fmt.Errorf("holds_when %q: an absolute claim's bound says what holds; leave holds_when out", c.HoldsWhen)
	case c.Stated == nil || c.Stated.Quote == "" || c.Stated.Where == "" || c.Stated.High != 0:
		return fmt.Errorf("absolute: stated needs the text's quote and where, and no ratio")
	case c.Rank != nil || c.Cases != nil || c.Here.Interaction() || c.Band != 0 || c.Ratio != [2]string{}:
		return fmt.Errorf("absolute: no rank, cases, num2, den2, band or ratio")
	case c.Here.Measure == "" || len(c.Here.Num) == 0:
		return fmt.Errorf("absolute: here needs a measure and num (den, if given, is subtracted)")
	}
	return nil
}

// validateCases checks a ranking counted over cases: the ranking, the
// cases, a count among them, and the text's words (a count states no
// ratio).
func validateCases(c Finding) error {
	k := c.Cases
	switch {
	case c.Rank == nil || !c.Rank.complete():
		return fmt.Errorf("cases: a count of rankings needs rank (among, first: lowest or highest, the paper's ranking)")
	case !contains(c.Rank.Among, c.Here.Num["stack"]):
		return fmt.Errorf("cases: the stack here's num names, %q, is not among %v", c.Here.Num["stack"], c.Rank.Among)
	case c.Rank.RunnerUp != "" || c.Rank.Last != "":
		return fmt.Errorf("cases: each case is judged on who is first; runner_up and last are not read")
	case len(k.Of) < 2 || k.Count < 1 || k.Count > len(k.Of):
		return fmt.Errorf("cases: two cases or more in of, and a count from 1 to %d", len(k.Of))
	case c.HoldsWhen != Greater && c.HoldsWhen != Less:
		return fmt.Errorf("holds_when %q: a ranking claims a direction (%q or %q)", c.HoldsWhen, Greater, Less)
	case c.Stated == nil || c.Stated.Quote == "" || c.Stated.Where == "" || c.Stated.High != 0:
		return fmt.Errorf("cases: stated needs the text's quote and where, and no ratio")
	case c.Here.Measure == "" || len(c.Here.Den) > 0 || c.Here.Interaction() || c.Absolute != nil || c.Ratio != [2]string{}:
		return fmt.Errorf("cases: here needs a measure and num alone; no absolute or ratio")
	}
	for i, sel := range k.Of {
		if len(sel) == 0 {
			return fmt.Errorf("cases.of[%d]: an empty selector", i)
		}
		if _, ok := sel["stack"]; ok {
			return fmt.Errorf("cases.of[%d]: a case names no stack (the ranking's among does)", i)
		}
	}
	return nil
}
