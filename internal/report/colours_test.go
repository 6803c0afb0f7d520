package report

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// legendEntry is what a chart's legend shows: an entry's words and the
// colour of the swatch drawn before them.
type legendEntry struct{ name, colour string }

var styleColour = regexp.MustCompile(`(stroke|fill):(#[0-9A-Fa-f]{6})`)

// colourOf is the colour an SVG element is drawn in: its stroke, else its
// fill; "" for neither.
func colourOf(style string) string {
	var fill string
	for _, m := range styleColour.FindAllStringSubmatch(style, -1) {
		if m[1] == "stroke" {
			return strings.ToLower(m[2])
		}
		fill = strings.ToLower(m[2])
	}
	return fill
}

// readChart reads a chart's SVG as drawn: its legend's entries, and the
// colours of everything drawn outside the legend and the hover targets.
func readChart(svg []byte) (legend []legendEntry, drawn map[string]bool, err error) {
	drawn = map[string]bool{}
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	var groups []string // the class of each open <g>
	swatch := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return legend, drawn, nil
		}
		if err != nil {
			return nil, nil, err
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "g":
				groups = append(groups, attr(e, "class"))
			case "path", "rect", "circle":
				c := colourOf(attr(e, "style"))
				switch {
				case slices.Contains(groups, "legend"):
					swatch = c
				case !slices.Contains(groups, "hover") && c != "":
					drawn[c] = true
				}
			case "text":
				if slices.Contains(groups, "legend") {
					var words string
					if err := dec.DecodeElement(&words, &e); err != nil {
						return nil, nil, err
					}
					legend = append(legend, legendEntry{name: strings.TrimSpace(words), colour: swatch})
				}
			}
		case xml.EndElement:
			if e.Name.Local == "g" {
				groups = groups[:len(groups)-1]
			}
		}
	}
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// Every chart file of a report is read back: each stack that appears in
// a legend has one colour across all of them, that colour is drawn in the
// chart (not only in its legend), and no two stacks share a colour. Run
// on the fixture and on the evolution study's results, which have 14
// stacks, seven of them codecs over REST.
func TestEveryStackIsDrawnInOneColourAcrossTheReport(t *testing.T) {
	sets := map[string]string{"fixture": "testdata/results.jsonl", "evolution": "../../experiments/evolution/results.jsonl"}
	for name, path := range sets {
		t.Run(name, func(t *testing.T) {
			recs, _, err := results.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Build(name, nil, recs)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := r.Write(dir); err != nil {
				t.Fatal(err)
			}
			checkStackColours(t, dir, recs)
		})
	}
}

func checkStackColours(t *testing.T, dir string, recs []results.Record) {
	t.Helper()
	stacks := map[string]bool{}
	for _, r := range recs {
		stacks[r.Stack] = true
	}
	files, err := filepath.Glob(filepath.Join(dir, ChartsDir, "*.svg"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no chart files in %s (%v)", dir, err)
	}
	colours := map[string]map[string][]string{} // stack -> colour -> charts
	for _, f := range files {
		svg, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		legend, drawn, err := readChart(svg)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		for _, e := range legend {
			if !stacks[e.name] {
				continue
			}
			if !drawn[e.colour] {
				t.Errorf("%s: the legend gives %s %s, and nothing in the chart is drawn in it", filepath.Base(f), e.name, e.colour)
			}
			if colours[e.name] == nil {
				colours[e.name] = map[string][]string{}
			}
			colours[e.name][e.colour] = append(colours[e.name][e.colour], filepath.Base(f))
		}
	}
	owner := map[string]string{}
	for st := range stacks {
		if len(colours[st]) == 0 {
			t.Errorf("%s is in no chart's legend", st)
		}
		if len(colours[st]) > 1 {
			t.Errorf("%s is drawn in %d colours: %v", st, len(colours[st]), colours[st])
		}
		for c := range colours[st] {
			if o, ok := owner[c]; ok {
				t.Errorf("%s and %s share the colour %s", o, st, c)
			}
			owner[c] = st
		}
	}
}
