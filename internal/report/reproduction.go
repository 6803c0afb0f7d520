package report

import (
	"fmt"
	"slices"

	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/reference"
)

// Reproduction is a published study's headline findings beside what the
// reported runs measured.
type Reproduction struct {
	Study, Title, Citation string
	// Counts tallies the findings by verdict; Findings is how many.
	Counts   string
	Findings int
	// Method says how the intervals were made and what the verdicts mean.
	Method string
	Table  Table
}

// Method is what a paper-vs-here table's columns and verdicts mean.
var Method = fmt.Sprintf("Each headline finding as the ratio the study published and the same ratio measured here. "+
	"A timing's interval is a %s; its direction is decided by a Mann–Whitney U test over the runs (α=%g, at least %d runs a side). "+
	"holds: a significant direction and the whole interval inside ×%.2g to ×%.3g of the paper's ratio (byte counts, exact, within %.0f %% of it); "+
	"holds in direction only: significant, the whole interval outside that band (stronger or weaker here); degree undecided: significant, the interval across the band's edge (the row says how many runs would decide it); does not hold: the opposite direction, significant; "+
	"inconclusive: no significant difference; a parity claim holds when the interval (from %d runs a side or more) sits inside ×%.3g to ×%.3g; "+
	"a superlative must rank first of every stack compared, significantly ahead of the runner-up here, with every contender measured, its degree judged on the paper's pair (the named stack over the paper's runner-up), and a stack the claim names last must be last of all, significantly; "+
	"an interaction (a ratio of two ratios) is significant when its bootstrap interval leaves out ×1; an outcome finding (schema trials) holds when every trial of its stack, change and path came back as the claim expects. "+
	"Codec timings are judged over independent runs only: Go's processes and the JVM's JMH forks (5 each), one figure a run; a timing of one process decides nothing.",
	reproduce.IntervalMethod, reproduce.Alpha, reproduce.MinRuns, 1/reproduce.DegreeBand, reproduce.DegreeBand, reproduce.Tolerance*100, reproduce.MinRuns, 1/(1+reference.Equivalence), 1+reference.Equivalence)

// Reproduce adds a paper-vs-here table for each study the records say
// they reproduce (their spec's study:).
func (r *Report) Reproduce(m reproduce.Measured) error {
	var names []string
	for _, rec := range m.Records {
		if rec.Study != "" && !slices.Contains(names, rec.Study) {
			names = append(names, rec.Study)
		}
	}
	for _, name := range names {
		study, err := reference.Lookup(name)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		rows := reproduce.Check(study, m)
		rp := Reproduction{Study: study.Study, Title: study.Title, Citation: study.Citation, Findings: len(rows),
			Counts: reproduce.Counts(rows), Method: Method}
		rp.Table.Header, rp.Table.Rows = reproduce.Table(rows)
		r.Reproductions = append(r.Reproductions, rp)
	}
	return nil
}
