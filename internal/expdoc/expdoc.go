// Package expdoc makes EXPERIMENTS.md from its template
// (experiments/EXPERIMENTS.md.tmpl) and the records committed under
// experiments/. Every figure the page quotes from a measurement (runs,
// minutes, floors, medians, ratios, intervals, failures, verdicts) is a
// template call computed here from the records, so the page cannot say
// other than its files: a test renders the template and fails when the
// committed page differs by one digit.
package expdoc

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/hopbench/hopbench/internal/codectiming"
	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/reference"
)

// Paths, relative to the repository.
const (
	Template = "experiments/EXPERIMENTS.md.tmpl"
	Page     = "EXPERIMENTS.md"
)

// Doc renders the page from the experiments under root/experiments,
// reading each one once, when first asked for.
type Doc struct {
	root string
	exps map[string]*exp
}

// exp is one experiment's records and what the verdicts read of them.
type exp struct {
	name string
	recs []results.Record
	m    reproduce.Measured
	rows []reproduce.Row // its study's findings, if it reproduces one
}

// New is a Doc of the repository at root.
func New(root string) *Doc { return &Doc{root: root, exps: map[string]*exp{}} }

// Render executes the template text.
func (d *Doc) Render(text string) ([]byte, error) {
	t, err := template.New(Template).Option("missingkey=error").Funcs(d.funcs()).Parse(text)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, nil); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// exp reads the experiment name (experiments/name) on first use.
func (d *Doc) exp(name string) (*exp, error) {
	if e := d.exps[name]; e != nil {
		return e, nil
	}
	dir := filepath.Join(d.root, "experiments", name)
	recs, _, err := results.Read(filepath.Join(dir, experiment.ResultsFile))
	if err != nil {
		return nil, err
	}
	e := &exp{name: name, recs: recs, m: reproduce.Measured{Records: recs}}
	if err := e.m.ReadBeside(dir, codectiming.File); err != nil {
		return nil, err
	}
	if st := studyOf(recs); st != "" {
		s, err := reference.Lookup(st)
		if err != nil {
			return nil, err
		}
		e.rows = reproduce.Check(s, e.m)
	}
	d.exps[name] = e
	return e, nil
}

func studyOf(recs []results.Record) string {
	for _, r := range recs {
		if r.Study != "" {
			return r.Study
		}
	}
	return ""
}

// finding is the row of the finding id.
func (e *exp) finding(id string) (reproduce.Row, error) {
	for _, r := range e.rows {
		if r.Finding.ID == id {
			return r, nil
		}
	}
	return reproduce.Row{}, fmt.Errorf("%s: no finding %q", e.name, id)
}

// Compare says where page differs from what the template made (want),
// line by line, the first few differences.
func Compare(page, want string) error {
	a, b := strings.Split(page, "\n"), strings.Split(want, "\n")
	var diffs []string
	for i := 0; i < max(len(a), len(b)) && len(diffs) < 8; i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			diffs = append(diffs, fmt.Sprintf("line %d:\n  page:     %s\n  records:  %s", i+1, x, y))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%s differs from what %s makes of the records:\n%s", Page, Template, strings.Join(diffs, "\n"))
}
