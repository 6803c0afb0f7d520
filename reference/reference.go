// Package reference holds the published figures of the studies hopbench
// reproduces, as data typed in from the texts in ../shared/seeds/: each
// figure with its value, unit, condition and where in the text it stands,
// and each headline finding as a ratio of two figures whose direction a
// reproduction can check. Built into the binary.
package reference

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed *.yaml
var files embed.FS

// Study is one study's published figures and findings.
type Study struct {
	Study    string    `yaml:"study"`
	Title    string    `yaml:"title"`
	Citation string    `yaml:"citation"`
	Seeds    []string  `yaml:"seeds"` // the texts it was typed in from
	Setup    string    `yaml:"setup"`
	Figures  []Figure  `yaml:"figures"`
	Findings []Finding `yaml:"findings"`
}

// Figure is one published number.
type Figure struct {
	ID        string  `yaml:"id"`
	Value     float64 `yaml:"value"`
	Error     float64 `yaml:"error,omitempty"` // ± as published, if any
	Unit      string  `yaml:"unit"`
	Condition string  `yaml:"condition"`
	// Where is the table, figure or section of the text; Page its page,
	// for texts that have pages.
	Where string `yaml:"where"`
	Page  int    `yaml:"page,omitempty"`
}

// Finding is a headline claim, checked as the ratio of two figures.
type Finding struct {
	ID    string    `yaml:"id"`
	Claim string    `yaml:"claim"`
	Ratio [2]string `yaml:"ratio"` // numerator and denominator figure ids
	// HoldsWhen is "greater than 1" or "less than 1": the direction the
	// claim asserts.
	HoldsWhen string `yaml:"holds_when"`
}

// Units a figure may have.
var Units = []string{"ns/op", "µs", "ms", "s", "B", "KiB", "MiB", "req/s", "%"}

// Load reads and checks every study.
func Load() ([]Study, error) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, err
	}
	var studies []Study
	for _, e := range entries {
		data, err := files.ReadFile(e.Name())
		if err != nil {
			return nil, err
		}
		var s Study
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("reference/%s: %w", e.Name(), err)
		}
		if err := s.validate(); err != nil {
			return nil, fmt.Errorf("reference/%s: %w", e.Name(), err)
		}
		studies = append(studies, s)
	}
	return studies, nil
}

// Lookup returns the study called name.
func Lookup(name string) (*Study, error) {
	studies, err := Load()
	if err != nil {
		return nil, err
	}
	var names []string
	for i := range studies {
		if studies[i].Study == name {
			return &studies[i], nil
		}
		names = append(names, studies[i].Study)
	}
	return nil, fmt.Errorf("no study %q in reference/ (known: %s)", name, strings.Join(names, ", "))
}

// Figure returns the figure called id.
func (s *Study) Figure(id string) (Figure, bool) {
	for _, f := range s.Figures {
		if f.ID == id {
			return f, true
		}
	}
	return Figure{}, false
}

func (s *Study) validate() error {
	if s.Study == "" || s.Citation == "" || len(s.Seeds) == 0 {
		return fmt.Errorf("study, citation and seeds are required")
	}
	ids := map[string]bool{}
	for i, f := range s.Figures {
		switch {
		case f.ID == "" || ids[f.ID]:
			return fmt.Errorf("figures[%d]: a missing or repeated id %q", i, f.ID)
		case !contains(Units, f.Unit):
			return fmt.Errorf("figures[%d] %s: unit %q (known: %s)", i, f.ID, f.Unit, strings.Join(Units, ", "))
		case f.Condition == "" || f.Where == "":
			return fmt.Errorf("figures[%d] %s: condition and where are required", i, f.ID)
		}
		ids[f.ID] = true
	}
	for i, c := range s.Findings {
		a, aok := s.Figure(c.Ratio[0])
		b, bok := s.Figure(c.Ratio[1])
		switch {
		case c.ID == "" || c.Claim == "":
			return fmt.Errorf("findings[%d]: id and claim are required", i)
		case !aok || !bok:
			return fmt.Errorf("findings[%d] %s: ratio %v names a figure that is not listed", i, c.ID, c.Ratio)
		case a.Unit != b.Unit:
			return fmt.Errorf("findings[%d] %s: a ratio of %s to %s", i, c.ID, a.Unit, b.Unit)
		case c.HoldsWhen != "greater than 1" && c.HoldsWhen != "less than 1":
			return fmt.Errorf("findings[%d] %s: holds_when %q: want \"greater than 1\" or \"less than 1\"", i, c.ID, c.HoldsWhen)
		}
	}
	return nil
}

// Published is the finding's ratio as the study published it.
func (s *Study) Published(c Finding) float64 {
	a, _ := s.Figure(c.Ratio[0])
	b, _ := s.Figure(c.Ratio[1])
	return a.Value / b.Value
}

// Holds says whether a ratio measured here points the way the claim does.
func (c Finding) Holds(ratio float64) bool {
	if c.HoldsWhen == "less than 1" {
		return ratio < 1
	}
	return ratio > 1
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
