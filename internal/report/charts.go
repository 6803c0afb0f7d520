package report

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"math"
	"regexp"
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

// palette is Okabe and Ito's colour-blind-safe set; a stack keeps its
// colour in every chart of a report.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, {0xE6, 0x9F, 0x00, 0xff}, {0x00, 0x9E, 0x73, 0xff}, {0xD5, 0x5E, 0x00, 0xff},
	{0xCC, 0x79, 0xA7, 0xff}, {0x56, 0xB4, 0xE9, 0xff}, {0xF0, 0xE4, 0x42, 0xff}, {0x00, 0x00, 0x00, 0xff},
}

type colours map[string]color.Color

func (c colours) of(name string) color.Color {
	if col, ok := c[name]; ok {
		return col
	}
	col := palette[len(c)%len(palette)]
	if len(c) >= len(palette) { // past the palette: darker shades
		col.R, col.G, col.B = col.R/2, col.G/2, col.B/2
	}
	c[name] = col
	return col
}

// chart is a plot and its legend, drawn beside the plot rather than over
// its data.
type chart struct {
	*plot.Plot
	legend plot.Legend
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
	c.legend.Top, c.legend.Left = true, true
	return c
}

// line is one named curve.
type line struct {
	Name string
	XYs  plotter.XYs
}

// linesChart draws a curve per line.
func linesChart(title, x, y string, lines []line, col colours) (*chart, error) {
	p := newPlot(title, x, y)
	return p, addLines(p, lines, col)
}

func addLines(p *chart, lines []line, col colours) error {
	for _, l := range lines {
		if err := addCurve(p, l.Name, l.XYs, col.of(l.Name), nil); err != nil {
			return err
		}
	}
	return nil
}

// spectrumPoints are a histogram's latency (ms) against -log10(1-q): the
// HdrHistogram percentile spectrum, where each step right is another 9.
// Points stop where the count gives no finer quantile.
func spectrumPoints(h *hdrhistogram.Histogram) plotter.XYs {
	var xys plotter.XYs
	limit := math.Log10(float64(h.TotalCount()))
	for k := 0; k <= 50; k++ {
		x := float64(k) / 10
		if x > limit {
			break
		}
		q := 100 * (1 - math.Pow(10, -x))
		xys = append(xys, plotter.XY{X: x, Y: float64(h.ValueAtQuantile(q)) / 1000})
	}
	return xys
}

func spectrumChart(title string, lines []line, col colours) (*chart, error) {
	p := newPlot(title, "percentile", "latency (ms, log)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{
		{Value: 0, Label: "0"}, {Value: math.Log10(2), Label: "50"}, {Value: 1, Label: "90"},
		{Value: 2, Label: "99"}, {Value: 3, Label: "99.9"}, {Value: 4, Label: "99.99"}, {Value: 5, Label: "99.999"},
	})
	return p, addLines(p, lines, col)
}

// bars is one series of a grouped bar chart, a value per category.
type bars struct {
	Name   string
	Values []float64 // NaN where not measured (drawn as nothing)
}

func barChart(title, y string, categories []string, series []bars, col colours) (*chart, error) {
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
		b.Color = col.of(s.Name)
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(i)-(n-1)/2) * width
		p.Add(b)
		p.legend.Add(s.Name, b)
	}
	return p, nil
}

var (
	svgPreamble = regexp.MustCompile(`(?s)^<\?xml[^>]*>\s*(<!--.*?-->\s*)?`)
	svgSize     = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)
)

// svgOf draws c, its legend in a column at the right. The file form is
// a standalone SVG; the inline form drops the XML preamble and fixed size
// so the page can scale it.
func svgOf(c *chart) (file, inline []byte, err error) {
	canvas := vgsvg.New(chartWidth, chartHeight)
	dc := draw.New(canvas)
	legendWidth := c.legend.Rectangle(dc).Size().X + vg.Points(16)
	c.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	c.legend.Draw(draw.Crop(dc, chartWidth-legendWidth+vg.Points(8), 0, 0, -vg.Points(24)))
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return nil, nil, fmt.Errorf("drawing %q: %w", c.Title.Text, err)
	}
	file = bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif"))
	in := svgPreamble.ReplaceAll(file, nil)
	in = svgSize.ReplaceAll(in, []byte(`<svg class="chart" role="img" aria-label="`+html.EscapeString(c.Title.Text)+`"`))
	return file, in, nil
}

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
