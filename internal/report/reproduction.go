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
	// Held counts the findings whose direction holds here, Measured those
	// measured at all.
	Held, Measured, Findings int
	Table                    Table
}

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
		rp := Reproduction{Study: study.Study, Title: study.Title, Citation: study.Citation, Findings: len(rows)}
		for _, row := range rows {
			if row.Verdict != reproduce.NotMeasured {
				rp.Measured++
			}
			if row.Verdict == reproduce.Holds {
				rp.Held++
			}
		}
		rp.Table.Header, rp.Table.Rows = reproduce.Table(rows)
		r.Reproductions = append(r.Reproductions, rp)
	}
	return nil
}
