package report

import (
	"cmp"
	"fmt"
	"html/template"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/ranking"
	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
)

// Verdict is what a run says, the first thing a report shows: each case's
// stacks ranked by the case's headline figure, each against the best, and
// heat maps of stacks × cases for that figure and for what the stacks cost.
type Verdict struct {
	Method   string
	Rankings []Ranking
	Maps     []HeatMap
	// Unranked names the cases no single figure ranks, and why.
	Unranked []string
	// Flips are the pairs of stacks whose order reverses between two
	// loads of the same case, significantly in both, each with what
	// explains it or that nothing does.
	Flips []Flip
}

// Ranking is one case's stacks, best first.
type Ranking struct {
	Case, Figure string
	Entries      []Ranked
	// Rounds says why the case's rounds stopped, when the experiment's
	// repetitions went on until decided; empty otherwise.
	Rounds string
	// Without are the stacks the case has no figure of, each with why.
	Without []string
}

// Ranked is a stack's place in a case.
type Ranked struct {
	Rank  int
	Stack string
	Value string // the stack's median: "0.213 ms"
	// Marks are the flags its runs carry, counted ("contaminated in 2 of
	// 5 runs"): a place that rests on marked runs says so.
	Marks string
	// Factor is the median against the best's ("×1.12 [1.05–1.20]"), with
	// its interval when both have two runs or more; empty for the best.
	Factor string
	// Versus is "≈" when the stack's runs do not differ significantly from
	// the best's, "≠" when they do, empty when too few runs to test.
	Versus string
	Title  string // every word of it, shown on hover
	Style  template.CSS
	Swatch template.CSS
}

// HeatMap is a figure for stacks × cases, each cell a stack's factor
// against its case's best. Columns are cases and rows stacks, or the other
// way round when there are more cases than stacks (Corner says which rows
// are: "stack" or "case").
type HeatMap struct {
	Title, Note, Corner string
	Columns             []HeatLabel
	Rows                []HeatRow
}

// HeatLabel names a row or column: a case, or a stack with its swatch.
type HeatLabel struct {
	Text   string
	Swatch template.CSS
}

// HeatRow is a row's cells, one per column.
type HeatRow struct {
	HeatLabel
	Cells []HeatCell
}

// HeatCell is a stack's figure in a case: its factor, or its value where
// it is the best; empty where not measured.
type HeatCell struct {
	Text, Title string
	Best        bool
	Style       template.CSS
}

// figure is a number read from each run whose figures stand, and how a
// finding writes it.
type figure struct {
	ranking.Figure
	format func(float64) string
}

var (
	p50Figure      = figure{ranking.P50, msWords}
	p99Figure      = figure{ranking.Figure{Name: "p99", Of: func(r *results.Record) (float64, bool) { return float64(r.P99Us), r.Requests > 0 }}, msWords}
	rpsFigure      = figure{ranking.Throughput, rpsWords}
	capacityFigure = figure{ranking.Capacity, rpsWords}
	cpuFigure      = figure{ranking.Figure{Name: "CPU per request, services and brokers", Of: func(r *results.Record) (float64, bool) { v := cpuOf(r); return v, v > 0 }}, usWords}
	memoryFigure   = figure{ranking.Figure{Name: "memory, largest service and brokers", Of: func(r *results.Record) (float64, bool) { v := memoryOf(r); return v, v > 0 }}, mibWords}
)

// cpuOf is a run's CPU per request in its services and brokers, µs.
func cpuOf(r *results.Record) float64 {
	cpu, _, _ := r.Services()
	for _, b := range r.Brokers {
		cpu += b.CPUUsPerReq
	}
	return cpu
}

// memoryOf is a run's largest service's RSS and its brokers', bytes.
func memoryOf(r *results.Record) float64 {
	_, rss, _ := r.Services()
	for _, b := range r.Brokers {
		rss += b.RSSBytes
	}
	return float64(rss)
}

// headline is the figure a case's stacks are ranked by (ranking.Headline).
func headline(load string) (figure, bool) {
	f, ok := ranking.Headline(load)
	for _, h := range []figure{p50Figure, rpsFigure, capacityFigure} {
		if ok && h.Name == f.Name {
			return h, true
		}
	}
	return figure{}, false
}

func (f figure) words() string {
	if f.HigherBetter {
		return f.Name + ", higher is better"
	}
	return f.Name + ", lower is better"
}

// standings are the cases' stacks with a figure, best first, and the
// stacks without one with why.
func standings(cases []*measured, runs map[string][]*results.Record, f figure) (ranked []point, without []string) {
	for _, c := range cases {
		p, ok := pointOf(c, runs, f)
		if !ok {
			without = append(without, c.Stack+": "+noFigure(c, len(runs[c.Case]), f))
			continue
		}
		ranked = append(ranked, p)
	}
	return bestFirst(ranked, f.HigherBetter), without
}

// bestFirst sorts pts best first, ties in legend order.
func bestFirst(pts []point, higherBetter bool) []point {
	slices.SortStableFunc(pts, func(a, b point) int {
		if higherBetter {
			a, b = b, a
		}
		return cmp.Or(cmp.Compare(a.v, b.v), compareStacks(a.stack, b.stack))
	})
	return pts
}

func noFigure(c *measured, ok int, f figure) string {
	switch {
	case ok > 0 && f.Bound != nil:
		return "no rate met the SLA"
	case ok > 0:
		return "not measured"
	case c.Flagged[results.FlagContradicted] > 0:
		return fmt.Sprintf("unsettled: %d of its runs contradict its closed-loop peak (a capacity under ×%g of it), so no figure; measure again", c.Flagged[results.FlagContradicted], results.MinCapacityShare)
	case c.Flagged[results.FlagPartlyFailed] > 0:
		return fmt.Sprintf("%d of its runs partly failed (over %g %% of calls failed or went unsent), so no figure", c.Flagged[results.FlagPartlyFailed], 100*results.MaxFailedShare)
	case slices.Contains(c.Outcomes, results.OutcomeCallsFailed):
		return "calls failed, so no figure"
	}
	return "no run ended ok (" + strings.Join(c.Outcomes, ", ") + ")"
}

// against is s's figure against the best's: the ratio of medians with
// its interval and runs, and the test between them.
type against struct {
	factor, interval, runs string
	versus, test           string
	heat                   float64
}

func compare(s, best point, higherBetter bool) against {
	r := s.v / best.v
	a := against{factor: fmt.Sprintf("×%.2f", r), runs: fmt.Sprintf("%d, %d runs", len(s.runs), len(best.runs))}
	if lo, hi := reproduce.RatioInterval(s.runs, best.runs); lo > 0 {
		a.interval = fmt.Sprintf("[%.2f–%.2f]", lo, hi)
	}
	if differs, tested, test := reproduce.Significant(s.runs, best.runs); tested {
		a.versus, a.test = "≈", test
		if differs {
			a.versus = "≠"
		}
	}
	worse := r
	if higherBetter && r > 0 {
		worse = 1 / r
	}
	a.heat = math.Max(0, math.Min(1, math.Log(worse)/math.Log(8)))
	return a
}

// heatStyle is a cell's background by how far from the best it is, on a
// colour-blind-safe yellow-to-brown ramp; the best has none.
func heatStyle(heat float64) template.CSS {
	if heat < 0.01 {
		return ""
	}
	from, to := [3]float64{255, 244, 190}, [3]float64{204, 90, 20}
	var c [3]uint8
	for i := range c {
		c[i] = uint8(from[i] + (to[i]-from[i])*heat + 0.5)
	}
	return template.CSS(fmt.Sprintf("background-color:#%02x%02x%02x;color:#111", c[0], c[1], c[2]))
}

func swatch(stack string) template.CSS {
	return template.CSS("background-color:" + hex(stackStyle(stack).Colour))
}

// verdict fills the report's first section from the cases and their runs.
func (b *builder) verdict() {
	v := &b.report.Verdict
	keys, by := groups(b.cases, (*measured).scenario)
	var ranked []string
	heads := map[string]figure{}
	for _, k := range keys {
		f, ok := headline(by[k][0].Load)
		if !ok {
			v.Unranked = append(v.Unranked, k+": a ramp has no one figure to rank by; its curves are under Ramps")
			continue
		}
		if by[k][0].isFeed() {
			f = f.forFeeds()
		}
		ranked, heads[k] = append(ranked, k), f
	}
	slices.SortStableFunc(ranked, func(a, b string) int { return compareCases(by[a][0], by[b][0]) })
	labels := caseLabels(ranked, by)
	var rcs []rankedCase
	for i, k := range ranked {
		v.Rankings = append(v.Rankings, rankCase(labels[i], by[k], b.runs, heads[k]))
		rcs = append(rcs, rankedCase{cases: by[k], f: heads[k]})
	}
	v.Rankings = append(v.Rankings, feedRankings(ranked, labels, by, b.runs)...)
	v.Flips = flips(rcs, b.runs)
	cols := columns{keys: ranked, labels: labels, by: by, runs: b.runs}
	for _, m := range []HeatMap{
		cols.heatMap("Each case's headline figure against its best", "The figure each case is ranked by, as above: a cell is the stack's median against its case's best, whose own value it shows.",
			func(k string) figure { return heads[k] }),
		cols.heatMap("CPU per request, against each case's least", "The services' CPU time and the brokers', over the measured window, per request completed. At one client it carries each process's idle work too.",
			func(string) figure { return cpuFigure }),
		cols.heatMap("Memory, against each case's least", "The largest service's resident set and the brokers', at the end of the measured window.",
			func(string) figure { return memoryFigure }),
	} {
		if len(m.Columns) > 0 {
			v.Maps = append(v.Maps, m)
		}
	}
	v.Method = verdictMethod(ranked, by, b.runs)
}

func rankCase(label string, cases []*measured, runs map[string][]*results.Record, f figure) Ranking {
	ranked, without := standings(cases, runs, f)
	rk := Ranking{Case: label, Figure: f.words(), Without: without}
	var caseRuns [][]*results.Record
	for _, c := range cases {
		caseRuns = append(caseRuns, runs[c.Case])
	}
	rk.Rounds = roundsWords(ranked, caseRuns, reproduce.Alpha)
	if f.Bound != nil && len(ranked) > 0 && !slices.ContainsFunc(ranked, func(p point) bool { return len(p.runs) > 1 }) {
		rk.Rounds = "one search a stack: no interval, nothing tested"
	}
	for i, s := range ranked {
		e := Ranked{Rank: i + 1, Stack: s.stack, Value: valueText(s, f), Swatch: swatch(s.stack), Marks: s.marks}
		e.Title = fmt.Sprintf("%s: %s %s, the median of %d runs", s.stack, f.Name, e.Value, len(s.runs))
		if s.marks != "" {
			e.Title += " (" + s.marks + ")"
		}
		if i > 0 {
			a := compare(s, ranked[0], f.HigherBetter)
			e.Factor, e.Versus, e.Style = strings.TrimSpace(a.factor+" "+a.interval), a.versus, heatStyle(a.heat)
			e.Title += a.words(ranked[0].stack)
		}
		rk.Entries = append(rk.Entries, e)
	}
	return rk
}

// words are a's figures as a sentence's end: "; ×1.12 [1.05–1.20] of
// grpc's (4, 4 runs), no significant difference: Mann–Whitney U …".
func (a against) words(best string) string {
	w := fmt.Sprintf("; %s of %s's (%s", strings.TrimSpace(a.factor+" "+a.interval), best, a.runs)
	switch a.versus {
	case "≈":
		return w + "), no significant difference: " + a.test
	case "≠":
		return w + "), a significant difference: " + a.test
	}
	return w + ": too few to test a difference)"
}

func valueText(s point, f figure) string {
	if s.bound {
		return "≥ " + f.format(s.v)
	}
	return f.format(s.v)
}

// columns are the ranked cases as a heat map's columns.
type columns struct {
	keys, labels []string
	by           map[string][]*measured
	runs         map[string][]*results.Record
}

// oneFigure says whether every column has the same figure.
func (cs columns) oneFigure(figureOf func(key string) figure) bool {
	for _, k := range cs.keys {
		if figureOf(k).Name != figureOf(cs.keys[0]).Name {
			return false
		}
	}
	return true
}

// heatMap is figureOf's cells for stacks × cases, a case a column; laid
// out with cases as rows instead when there are more cases than stacks, so
// the table stays as wide as the fewer.
func (cs columns) heatMap(title, note string, figureOf func(key string) figure) HeatMap {
	var cases []HeatLabel
	cells := map[string]map[int]HeatCell{} // stack -> case -> cell
	oneFigure := cs.oneFigure(figureOf)
	for i, k := range cs.keys {
		f := figureOf(k)
		ranked, _ := standings(cs.by[k], cs.runs, f)
		if len(ranked) == 0 {
			continue
		}
		label := cs.labels[i]
		if !oneFigure {
			label += " (" + f.Name + ")"
		}
		for j, s := range ranked {
			if cells[s.stack] == nil {
				cells[s.stack] = map[int]HeatCell{}
			}
			cells[s.stack][len(cases)] = heatCell(s, ranked[0], j == 0, f)
		}
		cases = append(cases, HeatLabel{Text: label})
	}
	var stacks []HeatLabel
	for _, st := range slices.SortedFunc(maps.Keys(cells), compareStacks) {
		stacks = append(stacks, HeatLabel{Text: st, Swatch: swatch(st)})
	}
	cell := func(stack, c int) HeatCell {
		if v, ok := cells[stacks[stack].Text][c]; ok {
			return v
		}
		return HeatCell{Text: "–", Title: stacks[stack].Text + ": not measured in this case"}
	}
	m := HeatMap{Title: title, Note: note, Corner: "stack", Columns: cases}
	rows, at := stacks, cell
	if len(cases) > len(stacks) {
		m.Corner, m.Columns, rows = "case", stacks, cases
		at = func(r, c int) HeatCell { return cell(c, r) }
	}
	for r, label := range rows {
		row := HeatRow{HeatLabel: label}
		for c := range m.Columns {
			row.Cells = append(row.Cells, at(r, c))
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

func heatCell(s, best point, isBest bool, f figure) HeatCell {
	c := HeatCell{Best: isBest, Text: valueText(s, f), Title: fmt.Sprintf("%s: %s, the median of %d runs", s.stack, valueText(s, f), len(s.runs))}
	if !isBest {
		a := compare(s, best, f.HigherBetter)
		c.Text, c.Style = a.factor, heatStyle(a.heat)
		c.Title += a.words(best.stack)
	}
	return c
}

// caseLabels name the cases in a few words: topology, payload and load,
// and the operation and options where the cases differ in them.
func caseLabels(keys []string, by map[string][]*measured) []string {
	parts := func(c *measured) []string {
		return []string{c.Topology, c.Op, c.payload(), loadWords(c.Load), c.Options}
	}
	varies := make([]bool, 5)
	for _, k := range keys {
		first := parts(by[keys[0]][0])
		for i, p := range parts(by[k][0]) {
			varies[i] = varies[i] || p != first[i]
		}
	}
	varies[0], varies[2], varies[3] = true, true, true
	labels := make([]string, len(keys))
	for j, k := range keys {
		var kept []string
		for i, p := range parts(by[k][0]) {
			if varies[i] {
				kept = append(kept, p)
			}
		}
		labels[j] = joinNonEmpty(kept...)
	}
	return labels
}

// loadWords is a load as a reader says it: "32 clients", "500 req/s open",
// "capacity at p99<=10ms".
func loadWords(load string) string {
	switch kind, first := ranking.LoadKind(load); kind {
	case "closed":
		if first == "1" {
			return "1 client"
		}
		return first + " clients"
	case "rate":
		return first + " req/s open"
	case "capacity":
		return "capacity at " + first
	}
	return load
}

// verdictMethod says how the verdict was reached, and what the runs
// behind it allow.
func verdictMethod(keys []string, by map[string][]*measured, runs map[string][]*results.Record) string {
	var counts []float64
	for _, k := range keys {
		for _, c := range by[k] {
			counts = append(counts, float64(len(runs[c.Case])))
		}
	}
	sp := results.SpreadOf(counts)
	m := "Each case's stacks are ranked by its headline figure: p50 with one client or at a fixed rate, throughput with more clients, capacity at the SLA for a capacity search. " +
		fmt.Sprintf("A figure is the median over the stack's runs whose figures stand: a run whose calls failed, or more than %g %% of them (failed or never sent, late replies aside), gives none. ", 100*results.MaxFailedShare) +
		fmt.Sprintf("×N is a stack's median against the best's, with its 95 %% bootstrap interval where both have 2 runs or more; ≈ marks a stack whose runs do not differ significantly from the best's, ≠ one whose do (Mann–Whitney U, α=%g, %d runs or more each). ", reproduce.Alpha, reproduce.MinRuns)
	switch {
	case len(counts) == 0:
		return m
	case sp.Min == sp.Max:
		m += fmt.Sprintf("Here every stack has %.0f run%s in each case", sp.Max, plural(int(sp.Max)))
	default:
		m += fmt.Sprintf("Here a stack has %.0f to %.0f runs in a case", sp.Min, sp.Max)
	}
	if int(sp.Max) < reproduce.MinRuns {
		return m + fmt.Sprintf(": too few to test any difference, so the factors are measurements, not verdicts of significance (repetitions: %d or more in the spec test them).", reproduce.MinRuns+1)
	}
	return m + "."
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// compareCases orders cases as a reader scans them: a direct call first,
// then shorter topologies; a payload's cases together; one client, then
// more, then open rates and capacity.
func compareCases(a, b *measured) int {
	return cmp.Or(cmp.Compare(topologyRank(a.Topology), topologyRank(b.Topology)), cmp.Compare(a.Topology, b.Topology),
		cmp.Compare(a.payload(), b.payload()), cmp.Compare(loadRank(a.Load), loadRank(b.Load)), cmp.Compare(a.Load, b.Load),
		cmp.Compare(a.Op, b.Op), cmp.Compare(a.Options, b.Options))
}

func topologyRank(t string) int {
	if t == "direct" {
		return 0
	}
	_, n, _ := strings.Cut(t, ":")
	if v, err := strconv.Atoi(n); err == nil {
		return v
	}
	return math.MaxInt
}

// loadRank is a load's place: closed loads by clients, then open rates by
// rate, then capacity searches.
func loadRank(load string) float64 {
	kind, first := ranking.LoadKind(load)
	v, err := strconv.ParseFloat(first, 64)
	if err != nil {
		v = 0
	}
	switch kind {
	case "closed":
		return v
	case "rate":
		return 1e9 + v
	}
	return 2e9
}
