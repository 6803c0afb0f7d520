package reproduce

import (
	"fmt"
	"maps"
	"strings"

	"github.com/hopbench/hopbench/reference"
)

// cases judges a ranking counted over cases ("the worst throughput in 5
// of 8 cases"): each case is ranked as a superlative is, and counts as
// the stack's when it comes first significantly, as another's when
// another comes first significantly, and as open otherwise (not
// significant, or not measured). The count holds when the cases decided
// reach it exactly (or at least it) and none open could change that;
// does not when the decided cases already rule it out.
func (m Measured) cases(row *Row) {
	f := row.Finding
	named, n, k := f.Here.Num["stack"], len(f.Cases.Of), f.Cases.Count
	var yes, no, open []string
	unmeasured := 0
	for _, c := range f.Cases.Of {
		sub := f
		sub.Cases = nil
		sub.Here.Num = maps.Clone(f.Here.Num)
		maps.Copy(sub.Here.Num, c)
		r := Row{Finding: sub}
		m.rank(&r)
		name := selText(c)
		switch {
		case significantlyAhead(r.Verdict):
			yes = append(yes, name)
		case r.Verdict == DoesNotHold:
			no = append(no, fmt.Sprintf("%s (%s %s)", name, r.Den.Stack, f.Rank.First))
		default:
			open = append(open, fmt.Sprintf("%s (%s)", name, r.Verdict))
			if r.Verdict == NotMeasured {
				unmeasured++
			}
		}
	}
	row.Amount = float64(len(yes))
	row.Figure = fmt.Sprintf("%s %s in %d of %d cases", named, f.Rank.First, len(yes), n)
	row.Test = "each case ranked as a superlative is (first significantly, Mann–Whitney U)"
	row.Why = casesWhy(named+" "+f.Rank.First, yes, no, open)
	switch {
	case len(yes) > k && !f.Cases.AtLeast || len(no) > n-k:
		row.Verdict = DoesNotHold
	case len(open) == 0 || f.Cases.AtLeast && len(yes) >= k:
		row.Verdict = Holds
	case unmeasured == len(open) && len(yes)+len(no) == 0:
		row.Verdict = NotMeasured
	default:
		row.Verdict = Inconclusive
	}
}

func casesWhy(named string, yes, no, open []string) string {
	var parts []string
	if len(yes) > 0 {
		parts = append(parts, named+": "+strings.Join(yes, ", "))
	}
	if len(no) > 0 {
		parts = append(parts, "another: "+strings.Join(no, ", "))
	}
	if len(open) > 0 {
		parts = append(parts, "undecided: "+strings.Join(open, ", "))
	}
	return strings.Join(parts, "; ")
}

// casesText is the count a counted ranking claims: "kafka lowest in 5 of
// 8 cases; ranking: …".
func casesText(f reference.Finding) string {
	at := ""
	if f.Cases.AtLeast {
		at = "at least "
	}
	return fmt.Sprintf("%s %s in %s%d of %d cases; ranking: %s", f.Here.Num["stack"], f.Rank.First, at, f.Cases.Count, len(f.Cases.Of), f.Rank.Paper)
}
