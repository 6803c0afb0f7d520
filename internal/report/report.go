// Package report turns results into what people look at: report.html,
// one self-contained page of charts, each beside its table; report.md with
// the key tables; and every chart as an SVG file for papers. It reads
// records only: every figure drawn is one a run measured.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/ranking"
	"github.com/hopbench/hopbench/internal/results"
)

// Table is a figure's numbers, as shown beside its chart.
type Table struct {
	Header []string
	Rows   [][]string
}

// Figure is one chart and its table.
type Figure struct {
	ID, Title, Caption string
	// Finding is what to read in the chart, in one line computed from its
	// figures.
	Finding   string
	SVG       []byte // standalone, for charts/ID.svg
	InlineSVG []byte // for the page
	Table     Table
}

// Section groups figures of one kind.
type Section struct {
	ID, Title, Intro string
	Figures          []*Figure
}

// Report is everything rendered, built from records.
type Report struct {
	Title   string
	Sources []string
	// Verdict is what the run says, ranked: the report's first section.
	Verdict     Verdict
	Environment [][2]string
	Summary     Table
	// Reproductions are paper-vs-here tables, for runs of a study's preset.
	Reproductions []Reproduction
	Sections      []*Section
	// Missing says what could not be drawn and why.
	Missing []string
}

// Build reads records (of one or more results files) into a report.
// sources name where they came from.
func Build(title string, sources []string, recs []results.Record) (*Report, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("report: no records to report on")
	}
	r := &Report{Title: title, Sources: sources, Environment: environmentOf(recs, noiseAfter(sources)), Summary: summaryTable(recs)}
	b, err := newBuilder(r, recs)
	if err != nil {
		return nil, err
	}
	b.verdict()
	for _, s := range []func() error{b.latency, b.latencyByPayload, b.feeds, func() error { return b.messaging(recs) }, b.connections, func() error { return b.mesh(recs) }, func() error { return b.networks(recs) }, func() error { return b.runtimes(recs) }, func() error { return b.evolution(recs) }, func() error { return b.hosts(recs) }, b.capacity, b.seconds, b.ramps, b.bytes, b.resources, b.boot} {
		if err := s(); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	return r, nil
}

type builder struct {
	report *Report
	cases  []*measured
	ids    map[string]int
	runs   map[string][]*results.Record // each case's runs whose figures stand
}

// newBuilder fills r from recs' cases, stacks in legend order.
func newBuilder(r *Report, recs []results.Record) (*builder, error) {
	cases, err := measure(recs)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	slices.SortStableFunc(cases, func(a, b *measured) int { return compareStacks(a.Stack, b.Stack) })
	return &builder{report: r, cases: cases, ids: map[string]int{}, runs: ranking.PerCase(recs)}, nil
}

func (b *builder) section(id, title, intro string) *Section {
	s := &Section{ID: id, Title: title, Intro: intro}
	b.report.Sections = append(b.report.Sections, s)
	return s
}

// add returns what adds a chart, as a chart constructor returns it, to s
// as a figure with its finding and table: b.add(s, finding, caption,
// t)(barChart(...)).
func (b *builder) add(s *Section, finding, caption string, t Table) func(*chart, error) error {
	return func(p *chart, err error) error {
		if err != nil {
			return err
		}
		f := &Figure{ID: b.id(s.ID + "-" + p.Title.Text), Title: p.Title.Text, Finding: finding, Caption: caption, Table: t}
		if f.SVG, f.InlineSVG, err = svgOf(p); err != nil {
			return err
		}
		s.Figures = append(s.Figures, f)
		return nil
	}
}

// addTable adds a figure that is a table alone, without a chart.
func (b *builder) addTable(s *Section, title, caption string, t Table) {
	s.Figures = append(s.Figures, &Figure{ID: b.id(s.ID + "-" + title), Title: title, Caption: caption, Table: t})
}

func (b *builder) missing(format string, args ...any) {
	b.report.Missing = append(b.report.Missing, fmt.Sprintf(format, args...))
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// id is a file-name-safe, unique slug of s.
func (b *builder) id(s string) string {
	id := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(strings.NewReplacer("×", "x", "+", "-plus-").Replace(s)), "-"), "-")
	b.ids[id]++
	if n := b.ids[id]; n > 1 {
		id = fmt.Sprintf("%s-%d", id, n)
	}
	return id
}

// groups splits cases by key, keeping first-seen order.
func groups(cases []*measured, key func(*measured) string) (keys []string, by map[string][]*measured) {
	return groupBy(cases, key)
}

// groupBy splits items by key, keeping first-seen order.
func groupBy[T any](items []T, key func(T) string) (keys []string, by map[string][]T) {
	by = map[string][]T{}
	for _, it := range items {
		k := key(it)
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], it)
	}
	return keys, by
}

// distinct returns f of each case, once each, in first-seen order.
func distinct(cases []*measured, f func(*measured) string) []string {
	keys, _ := groups(cases, f)
	return keys
}

func stackOf(c *measured) string { return c.Stack }

// measuredOnly drops cases no run completed.
func measuredOnly(cases []*measured) []*measured {
	return measuredWhere(cases, func(*measured) bool { return true })
}

// measuredWhere keeps the cases some run completed that keep holds for.
func measuredWhere(cases []*measured, keep func(*measured) bool) []*measured {
	var out []*measured
	for _, c := range cases {
		if c.Reps > 0 && keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// noiseAfter is the noise measured after the runs, beside the one source's
// results; -1 when there is none (or several sources).
func noiseAfter(sources []string) float64 {
	if len(sources) != 1 {
		return -1
	}
	dir := sources[0]
	if !strings.HasSuffix(dir, ".jsonl") {
		dir = filepath.Join(dir, "x")
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(dir), results.NoiseAfterFile))
	var after struct {
		Spread *float64 `json:"noise_spread"`
	}
	if err != nil || json.Unmarshal(data, &after) != nil || after.Spread == nil {
		return -1
	}
	return *after.Spread
}

func environmentOf(recs []results.Record, after float64) [][2]string {
	e := recs[0].Environment
	env := [][2]string{
		{"hopbench", e.Hopbench}, {"Go", e.Go}, {"CPU", fmt.Sprintf("%s, %d cores", e.CPU, e.Cores)},
		{"kernel", e.Kernel}, {"pinning", recs[0].Pinning},
		{"runs", fmt.Sprintf("%d, %s to %s", len(recs), recs[0].Started.UTC().Format("2006-01-02 15:04:05"), recs[len(recs)-1].Ended.UTC().Format("2006-01-02 15:04:05 UTC"))},
	}
	if gc := results.GCTargets(recs); gc != "" {
		env = append(env, [2]string{"generator", "GOGC " + gc + " (the load generator's garbage collector; nodes keep their own)"})
	}
	if c := recs[0].Calibration; c != nil {
		env = append(env, [2]string{"floor", fmt.Sprintf("TCP round trip %.1f µs, HTTP round trip %.1f µs, generator %.2f µs CPU per request (medians of %d)",
			c.TCPRoundTripUs, c.HTTPRoundTripUs, c.GeneratorCPUUsPerReq, c.Samples)})
		if c.NoiseSpread > 0 {
			noise := fmt.Sprintf("a fixed workload's median (the HTTP round trip) moved %.0f %% across 5 batches before the runs", 100*c.NoiseSpread)
			if after >= 0 {
				noise += fmt.Sprintf(", %.0f %% after them", 100*after)
			}
			env = append(env, [2]string{"noise", noise})
		}
	}
	return env
}

func summaryTable(recs []results.Record) Table {
	var t Table
	t.Header, t.Rows = results.Table(results.Summarize(recs))
	return t
}
