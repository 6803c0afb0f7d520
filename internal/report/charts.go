package report

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"regexp"
	"slices"
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Charts are drawn with gonum/plot as SVG: the same drawing goes inline
// into report.html and into charts/*.svg for papers, and needs no script
// or network to show.
const (
	chartWidth  = 7 * vg.Inch
	chartHeight = 3.4 * vg.Inch
)

// chart is a plot and its legend, drawn beside the plot rather than over
// its data.
type chart struct {
	*plot.Plot
	legend plot.Legend
	// spots are where the data landed when drawn, each with the exact
	// figure a reader sees on hover (SVG <title>).
	spots []hotspot
}

// sans is Liberation Sans, which has Arial's and Helvetica's metrics, so a
// viewer without it lays out the text as measured.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func newPlot(title, x, y string) *chart {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Title.TextStyle.Font = font.From(sans, 12)
	p.X.Label.TextStyle.Font, p.Y.Label.TextStyle.Font = font.From(sans, 10), font.From(sans, 10)
	p.X.Tick.Label.Font, p.Y.Tick.Label.Font = font.From(sans, 9), font.From(sans, 9)
	p.Add(plotter.NewGrid())
	c := &chart{Plot: p, legend: plot.NewLegend()}
	c.legend.TextStyle.Font = font.From(sans, 9)
	c.legend.Top, c.legend.Left, c.legend.Padding = true, true, vg.Points(1.5)
	return c
}

// line is one stack's curve; Hover, when set, is what each point shows on
// hover (else its x and y with the axes' words).
type line struct {
	Name  string
	XYs   plotter.XYs
	Hover []string
}

// linesChart draws a curve per line, each line a stack's.
func linesChart(title, x, y string, lines []line) (*chart, error) {
	p := newPlot(title, x, y)
	return p, addLines(p, lines)
}

func addLines(p *chart, lines []line) error {
	slices.SortStableFunc(lines, func(a, b line) int { return compareStacks(a.Name, b.Name) })
	for _, l := range lines {
		thumbs, err := addCurve(p, l, stackStyle(l.Name))
		if err != nil {
			return err
		}
		if thumbs != nil {
			p.legend.Add(l.Name, thumbs...)
		}
	}
	return nil
}

// spectrumPoints are a histogram's latency (ms) against -log10(1-q): the
// HdrHistogram percentile spectrum, where each step right is another 9.
// Points stop where the count gives no finer quantile.
func spectrumPoints(h *hdrhistogram.Histogram) (xys plotter.XYs, hover []string) {
	limit := math.Log10(float64(h.TotalCount()))
	for k := 0; k <= 50; k++ {
		x := float64(k) / 10
		if x > limit {
			break
		}
		q := 100 * (1 - math.Pow(10, -x))
		v := float64(h.ValueAtQuantile(q))
		xys, hover = append(xys, plotter.XY{X: x, Y: v / 1000}), append(hover, "p"+strconv.FormatFloat(q, 'f', -1, 64)+": "+ms(v)+" ms")
	}
	return xys, hover
}

func spectrumChart(title string, lines []line) (*chart, error) {
	p := newPlot(title, "percentile", "latency (ms, log)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{
		{Value: 0, Label: "0"}, {Value: math.Log10(2), Label: "50"}, {Value: 1, Label: "90"},
		{Value: 2, Label: "99"}, {Value: 3, Label: "99.9"}, {Value: 4, Label: "99.99"}, {Value: 5, Label: "99.999"},
	})
	return p, addLines(p, lines)
}

// bars is one series of a grouped bar chart, a value per category.
type bars struct {
	Name   string
	Values []float64 // NaN where not measured (drawn as nothing)
}

// barChart draws a group of bars per category, a bar per series in each,
// styled by styleOf (byStack when the series are stacks).
func barChart(title, y string, categories []string, series []bars, styleOf func(int, string) style) (*chart, error) {
	p := newPlot(title, "", y)
	p.NominalX(categories...)
	n := float64(len(series))
	width := vg.Points(math.Min(18, 300/(n*float64(len(categories))+1)))
	for i, s := range series {
		vals := make(plotter.Values, len(s.Values))
		for j, v := range s.Values {
			if !math.IsNaN(v) {
				vals[j] = v
			}
		}
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, fmt.Errorf("chart %q, %s: %w", title, s.Name, err)
		}
		b.Color = styleOf(i, s.Name).Colour
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(i)-(n-1)/2) * width
		p.Add(b, barHover(p, s, categories, width, b.Offset))
		p.legend.Add(s.Name, b)
	}
	return p, nil
}

// stackBarChart draws figures measured per stack: series gives each
// figure's values by stack (in stacks' order). Each figure becomes a group
// of bars, a bar per stack in the stack's own colour, in legend order.
func stackBarChart(title, y string, stacks []string, series []bars) (*chart, error) {
	figures := make([]string, len(series))
	for i, s := range series {
		figures[i] = s.Name
	}
	perStack := make([]bars, len(stacks))
	for j, st := range stacks {
		perStack[j].Name = st
		for _, s := range series {
			perStack[j].Values = append(perStack[j].Values, s.Values[j])
		}
	}
	slices.SortStableFunc(perStack, func(a, b bars) int { return compareStacks(a.Name, b.Name) })
	return barChart(title, y, figures, perStack, byStack)
}

var (
	svgPreamble = regexp.MustCompile(`(?s)^<\?xml[^>]*>\s*(<!--.*?-->\s*)?`)
	svgSize     = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)
	svgBody     = regexp.MustCompile(`(?s)^.*?<g transform="[^"]*">\n(.*)</g>\s*</svg>\s*$`)
)

// svgOf draws c, its legend in a column at the right, as tall as the
// legend needs. The legend is a group of its own (class "legend"), and
// every data point or bar has an invisible hover target with its exact
// figure as <title> (class "hover"). The file form is a standalone SVG;
// the inline form drops the XML preamble and fixed size so the page can
// scale it.
func svgOf(c *chart) (file, inline []byte, err error) {
	legendSize := c.legend.Rectangle(draw.New(vgsvg.New(chartWidth, chartHeight))).Size()
	height := max(chartHeight, legendSize.Y+vg.Points(40))
	plotCanvas, legendCanvas := vgsvg.New(chartWidth, height), vgsvg.New(chartWidth, height)
	dc, lc := draw.New(plotCanvas), draw.New(legendCanvas)
	legendWidth := legendSize.X + vg.Points(16)
	c.spots = c.spots[:0]
	c.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	c.legend.Draw(draw.Crop(lc, chartWidth-legendWidth+vg.Points(8), 0, 0, -vg.Points(24)))
	var plotSVG, legendSVG bytes.Buffer
	if _, err := plotCanvas.WriteTo(&plotSVG); err != nil {
		return nil, nil, fmt.Errorf("drawing %q: %w", c.Title.Text, err)
	}
	if _, err := legendCanvas.WriteTo(&legendSVG); err != nil {
		return nil, nil, fmt.Errorf("drawing %q's legend: %w", c.Title.Text, err)
	}
	legend := svgBody.FindSubmatch(legendSVG.Bytes())
	end := bytes.LastIndex(plotSVG.Bytes(), []byte("</g>"))
	if legend == nil || end < 0 {
		return nil, nil, fmt.Errorf("drawing %q: the SVG writer's output is not the shape hopbench reads", c.Title.Text)
	}
	var b bytes.Buffer
	b.Write(plotSVG.Bytes()[:end])
	b.WriteString("<g class=\"legend\">\n")
	b.Write(legend[1])
	b.WriteString("</g>\n<g class=\"hover\">\n")
	for _, s := range c.spots {
		s.writeTo(&b)
	}
	b.WriteString("</g>\n")
	b.Write(plotSVG.Bytes()[end:])
	file = bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif"))
	in := svgPreamble.ReplaceAll(file, nil)
	in = svgSize.ReplaceAll(in, []byte(`<svg class="chart" role="img" aria-label="`+html.EscapeString(c.Title.Text)+`"`))
	return file, in, nil
}

// hotspot is where a figure was drawn, in the canvas's points (origin at
// the bottom left, as inside the SVG's flipped group): a bar's box, or a
// point when W is 0.
type hotspot struct {
	X, Y, W, H vg.Length
	Text       string
}

func (s hotspot) writeTo(b *bytes.Buffer) {
	title := html.EscapeString(s.Text)
	if s.W == 0 {
		fmt.Fprintf(b, `<circle cx="%.2f" cy="%.2f" r="5" style="fill:#000;fill-opacity:0"><title>%s</title></circle>`+"\n", s.X.Points(), s.Y.Points(), title)
		return
	}
	fmt.Fprintf(b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" style="fill:#000;fill-opacity:0"><title>%s</title></rect>`+"\n", s.X.Points(), s.Y.Points(), s.W.Points(), max(s.H, 2).Points(), title)
}

// hover is a plotter that draws nothing: when its plot is drawn it notes
// where its figures landed, through at, as the chart's hotspots.
type hover struct {
	chart *chart
	at    func(trX, trY func(float64) vg.Length) []hotspot
}

func (h hover) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	h.chart.spots = append(h.chart.spots, h.at(trX, trY)...)
}

// pointHover is a hotspot on each of l's points.
func pointHover(p *chart, l line) hover {
	return hover{chart: p, at: func(trX, trY func(float64) vg.Length) []hotspot {
		var out []hotspot
		for i, xy := range l.XYs {
			text := fmt.Sprintf("%s — %s: %s, %s: %s", l.Name, p.X.Label.Text, exact(xy.X), p.Y.Label.Text, exact(xy.Y))
			if i < len(l.Hover) {
				text = l.Name + " — " + l.Hover[i]
			}
			out = append(out, hotspot{X: trX(xy.X), Y: trY(xy.Y), Text: text})
		}
		return out
	}}
}

// barHover is a hotspot on each of s's bars.
func barHover(p *chart, s bars, categories []string, width, offset vg.Length) hover {
	return hover{chart: p, at: func(trX, trY func(float64) vg.Length) []hotspot {
		var out []hotspot
		for j, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			y0, y1 := trY(0), trY(v)
			out = append(out, hotspot{X: trX(float64(j)) - width/2 + offset, Y: min(y0, y1), W: width, H: vg.Length(math.Abs(float64(y1 - y0))),
				Text: fmt.Sprintf("%s — %s: %s %s", s.Name, categories[j], exact(v), p.Y.Label.Text)})
		}
		return out
	}}
}

// addCurve draws l in st, its points marked and each with a hotspot, and
// returns what its legend entry shows (nothing for no points).
func addCurve(p *chart, l line, st style) ([]plot.Thumbnailer, error) {
	if len(l.XYs) == 0 {
		return nil, nil
	}
	lp, sp, err := plotter.NewLinePoints(l.XYs)
	if err != nil {
		return nil, fmt.Errorf("chart %q, %s: %w", p.Title.Text, l.Name, err)
	}
	lp.Color, sp.Color, lp.Dashes = st.Colour, st.Colour, st.Dashes
	lp.Width, sp.Radius, sp.Shape = vg.Points(1.5), vg.Points(2), st.Glyph
	p.Add(lp, sp, pointHover(p, l))
	return []plot.Thumbnailer{lp, sp}, nil
}

// exact is v with every digit it has, as hover shows it.
func exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Formatting of table cells.
func ms(us float64) string { return strconv.FormatFloat(us/1000, 'f', 3, 64) }

func num(v float64, prec int) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func mib(b float64) string {
	if math.IsNaN(b) || b == 0 {
		return "—"
	}
	return strconv.FormatFloat(b/(1<<20), 'f', 1, 64)
}
