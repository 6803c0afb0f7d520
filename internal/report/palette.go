package report

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hopbench/hopbench/internal/ranking"
)

// A stack's look is fixed by its name, not by where it falls in a chart:
// its technology picks a hue from Okabe and Ito's colour-blind-safe set,
// its codec and compression a shade of that hue, a marker and a line
// style. So rest+proto is a lighter rest blue in every chart of every
// report, and gRPC's vermillion is never near it.
type style struct {
	Colour color.RGBA
	Dashes []vg.Length // nil: a solid line
	Glyph  draw.GlyphDrawer
}

// hues are the technologies' colours; ranking.Technologies is their
// legend order.
var hues = map[string]color.RGBA{
	"rest":    color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
	"grpc":    color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	"graphql": color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	"amqp":    color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	"kafka":   color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
	"nats":    color.RGBA{0x4D, 0x4D, 0x4D, 0xff}, // grey
	"redis":   color.RGBA{0x88, 0x22, 0x55, 0xff}, // wine (Paul Tol's muted set)
	// The Connect family: connect-go's three protocols.
	"connect":      color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	"grpcweb":      color.RGBA{0x9E, 0x8A, 0x00, 0xff}, // dark yellow
	"connect-grpc": color.RGBA{0x8C, 0x2D, 0x04, 0xff}, // dark vermillion, beside grpc's
	"ws":           color.RGBA{0x33, 0x22, 0x88, 0xff}, // indigo
	"grpc-stream":  color.RGBA{0xF0, 0x8A, 0x4B, 0xff}, // light vermillion, beside grpc's
	"rest-h3":      color.RGBA{0x00, 0x3F, 0x6B, 0xff}, // dark blue, beside rest's
	"mqtt":         color.RGBA{0x66, 0x0E, 0x7A, 0xff}, // purple
}

// unknownHue is a technology hopbench's report does not know yet.
var unknownHue = color.RGBA{0x88, 0x77, 0x55, 0xff}

// codecShade is how far a codec moves its technology's hue toward white
// (+) or black (−), by the codec's place in codec.Names() after the
// technology's default (place 0); compressionShade is what compression
// adds. They keep the variants studies run together apart: rest,
// rest+gzip, rest+proto, rest+proto+gzip, and the evolution preset's seven
// codecs over REST.
var (
	codecShade       = []float64{0, -0.45, +0.3, +0.6, -0.3, +0.75, -0.55, -0.15}
	compressionShade = []float64{0, -0.4, -0.6}
	glyphs           = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.BoxGlyph{}}
	compressionDash  = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}
)

// stackStyle is the look of the stack called name, the same in every chart.
func stackStyle(name string) style {
	v := ranking.VariantOf(name)
	hue, ok := hues[v.Tech]
	if !ok {
		hue = unknownHue
	}
	c, z := min(v.Codec, len(codecShade)-1), min(v.Compressed, len(compressionShade)-1)
	return style{
		Colour: shade(hue, max(-0.75, min(0.8, codecShade[c]+compressionShade[z]))),
		Dashes: compressionDash[z],
		Glyph:  glyphs[c],
	}
}

// shade moves c toward white by f (> 0) or toward black by −f (< 0).
func shade(c color.RGBA, f float64) color.RGBA {
	mix := func(x uint8) uint8 {
		if f >= 0 {
			return uint8(float64(x) + (255-float64(x))*f + 0.5)
		}
		return uint8(float64(x)*(1+f) + 0.5)
	}
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// compareStacks orders stacks as every legend and table lists them
// (ranking.CompareStacks): by technology, then default codec before the
// others in codec.Names() order, then uncompressed first.
func compareStacks(a, b string) int { return ranking.CompareStacks(a, b) }

// seriesStyle is the look of the i-th series of a chart whose series are
// not stacks (networks, say): Okabe and Ito's colours in their order.
func seriesStyle(i int, _ string) style {
	set := []color.RGBA{{0x56, 0xB4, 0xE9, 0xff}, {0x99, 0x99, 0x99, 0xff}, {0xF0, 0xE4, 0x42, 0xff}, {0x00, 0x00, 0x00, 0xff}}
	return style{Colour: set[i%len(set)], Glyph: draw.CircleGlyph{}}
}

// byStack is the style of a series named after a stack.
func byStack(_ int, name string) style { return stackStyle(name) }

// hex is c as CSS writes it.
func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
