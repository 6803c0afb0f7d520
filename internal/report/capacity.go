package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/hopbench/hopbench/internal/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// capacity draws, for each scenario searched, every stack's latency
// against the rate it achieved (the curve its probes traced), the SLA,
// each stack's knee, and the capacities side by side.
func (b *builder) capacity() error {
	searched := measuredWhere(b.cases, func(c *measured) bool { return c.Search != nil })
	if len(searched) == 0 {
		return nil
	}
	s := b.section("capacity", "Capacity at the SLA: latency against throughput",
		"Each probe of a capacity search (first repetition), open loop: the SLA's percentile (each stack's line) and p50 (thin, dotted, in the same colour) from the intended send time, against the rate achieved, on a log latency axis. The grey line is the SLA; a ring marks each stack's knee, the highest rate probed that met it. Capacities are medians over repetitions; in the table ≥ marks a lower bound (the generator could not send more, or the search ran out of time or rates before the stack failed), a range a search cut short between a rate that met the SLA and one that did not, < N a search that found no rate meeting it down to N; the bars draw the medians, bounds unmarked, and nothing where no capacity was found.")
	keys, by := groups(searched, (*measured).scenario)
	for _, k := range keys {
		cases := by[k]
		t := Table{Header: []string{"stack", "capacity req/s", "p50 ms there (1st run)", "percentile ms there (1st run)", "probes (1st run)", "search ended (1st run)"}}
		var caps bars
		pts := b.pointsOf(cases, capacityFigure)
		bounded := slices.ContainsFunc(pts, func(p point) bool { return p.bound })
		for _, c := range cases {
			v := c.Capacity.Median
			if v == 0 {
				v = math.NaN() // no capacity found: no bar, the table says why
			}
			caps.Values = append(caps.Values, v)
			t.Rows = append(t.Rows, capacityRow(c))
		}
		caps.Name = "capacity at the SLA"
		found := finding("capacity at the SLA", true, pts, rpsWords)
		if bounded {
			found += " Some of these are lower bounds (≥ in the table): a search that stopped before its stack failed the SLA."
		}
		if err := b.add(s, found, "", t)(curveChart(k, cases)); err != nil {
			return err
		}
		if err := b.add(s, found, "", t)(stackBarChart(k+": capacity at the SLA", "req/s", distinct(cases, stackOf), []bars{caps})); err != nil {
			return err
		}
	}
	return nil
}

func capacityRow(c *measured) []string {
	se := c.Search
	p50, at := "—", "—"
	if se.Step >= 0 {
		st := c.Steps[se.Step]
		p50, at = ms(float64(st.Latency.P50Us)), ms(float64(st.PercentileUs))
	}
	return []string{c.Stack, c.CapacityCell(), p50, at, strconv.Itoa(len(c.Steps)), se.Ended}
}

// curveChart is latency against achieved rate, a stack's probes in its
// style: the SLA's percentile as its line, p50 thin and dotted in its
// colour; with the SLA and each knee.
func curveChart(title string, cases []*measured) (*chart, error) {
	se := cases[0].Search
	p := newPlot(title+": latency against throughput", "achieved rate (req/s)", "latency (ms, log)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	pct := "p" + pctLabel(se.Percentile)
	maxX := 0.0
	for _, c := range cases {
		probes := slices.Clone(c.Steps)
		slices.SortFunc(probes, func(x, y results.Step) int { return cmp.Compare(x.Value, y.Value) })
		p50, pq := line{Name: c.Stack}, line{Name: c.Stack}
		for _, st := range probes {
			if st.Latency.Count == 0 {
				continue
			}
			at := fmt.Sprintf(" at %s req/s achieved (%s asked)", num(st.RPS, 0), num(st.Value, 0))
			p50.XYs, p50.Hover = append(p50.XYs, plotter.XY{X: st.RPS, Y: posMs(st.Latency.P50Us)}), append(p50.Hover, "p50 "+ms(float64(st.Latency.P50Us))+" ms"+at)
			pq.XYs, pq.Hover = append(pq.XYs, plotter.XY{X: st.RPS, Y: posMs(st.PercentileUs)}), append(pq.Hover, pct+" "+ms(float64(st.PercentileUs))+" ms"+at)
			maxX = math.Max(maxX, st.RPS)
		}
		st := stackStyle(c.Stack)
		thumbs, err := addCurve(p, pq, st)
		if err != nil {
			return nil, err
		}
		if thumbs != nil {
			p.legend.Add(c.Stack, thumbs...)
		}
		st.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		if _, err := addCurve(p, p50, st); err != nil {
			return nil, err
		}
		if k := c.Search.Step; k >= 0 {
			knee, err := plotter.NewScatter(plotter.XYs{{X: c.Steps[k].RPS, Y: posMs(c.Steps[k].PercentileUs)}})
			if err != nil {
				return nil, err
			}
			knee.GlyphStyle = draw.GlyphStyle{Color: st.Colour, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
			p.Add(knee)
		}
	}
	sla := float64(se.SLAUs) / 1000
	bound, err := plotter.NewLine(plotter.XYs{{X: 0, Y: sla}, {X: maxX * 1.05, Y: sla}})
	if err != nil {
		return nil, err
	}
	bound.Color, bound.Width, bound.Dashes = color.Gray{Y: 0x80}, vg.Points(1), []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(bound)
	p.legend.Add(fmt.Sprintf("SLA %s ≤ %s", pct, time.Duration(se.SLAUs)*time.Microsecond), bound)
	return p, nil
}

// posMs is a latency in ms for a log axis, which cannot take zero.
func posMs(us int64) float64 { return math.Max(float64(us), 1) / 1000 }

func pctLabel(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
