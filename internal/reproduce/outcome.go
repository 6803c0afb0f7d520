package reproduce

import (
	"fmt"
	"strings"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/reference"
)

// outcome judges a finding on schema trials' outcomes: it holds when every
// trial of the stack, change and path its selector names (each item count
// and repetition) came back as the claim expects, and does not when any
// came back otherwise; Outcome then says what was seen and Why how often
// and what happened.
func (m Measured) outcome(row *Row) {
	f := row.Finding
	sel := f.Here.Num
	seen := map[evolution.Outcome]int{}
	var order []evolution.Outcome
	detail := map[evolution.Outcome]string{}
	for _, r := range m.Records {
		if r.Stack != sel["stack"] {
			continue
		}
		for _, t := range r.Evolution {
			if t.Change != sel["change"] || t.Path != sel["path"] {
				continue
			}
			o := t.Outcome
			if f.Here.Measure == reference.MeasureEvolutionOthers {
				o = t.Others
			}
			if seen[o] == 0 {
				order = append(order, o)
				detail[o] = t.Detail
			}
			seen[o]++
		}
	}
	if len(order) == 0 {
		row.Verdict, row.Why = NotMeasured, fmt.Sprintf("no schema trial of %s in these results (run the evolution preset)", selText(sel))
		return
	}
	var parts, names []string
	for _, o := range order {
		p := fmt.Sprintf("%s %d", o, seen[o])
		if o != evolution.Kept && detail[o] != "" && f.Here.Measure == reference.MeasureEvolution {
			p += " (" + detail[o] + ")"
		}
		parts, names = append(parts, p), append(names, string(o))
	}
	row.Outcome, row.Test = strings.Join(names, " and "), "every trial"
	row.Why = "trials: " + strings.Join(parts, "; ")
	row.Verdict = DoesNotHold
	if len(order) == 1 && string(order[0]) == f.HoldsWhen {
		row.Verdict = Holds
	}
}
