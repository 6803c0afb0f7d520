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
	Study    string   `yaml:"study"`
	Title    string   `yaml:"title"`
	Citation string   `yaml:"citation"`
	Seeds    []string `yaml:"seeds,omitempty"` // the texts it was typed in from
	// Sources are the texts outside the seeds a study was typed in from
	// instead (claims from outside the four studies): each stated quote
	// names one, and says beside it what of it could be read.
	Sources  []Source  `yaml:"sources,omitempty"`
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

// Finding is a headline claim: the ratio of two of the study's figures,
// or where the text gives only a percentage or a direction, the ratio it
// states. Here says how hopbench measures the same ratio.
type Finding struct {
	ID    string `yaml:"id"`
	Claim string `yaml:"claim"`
	// Ratio names the numerator and denominator figures.
	Ratio [2]string `yaml:"ratio,omitempty"`
	// Stated is the ratio as the text states it, for a finding without
	// two figures of its own.
	Stated *Stated `yaml:"stated,omitempty"`
	// HoldsWhen is "greater than 1" or "less than 1", the direction the
	// claim asserts, or "about 1" for a parity claim ("very similar"),
	// which holds when the ratio sits inside an equivalence band.
	HoldsWhen string `yaml:"holds_when"`
	// Rank makes the finding a superlative ("fastest", "biggest"): the
	// stack Here.Num names must come first of every stack the study
	// compared in that case, not just ahead of Here.Den's.
	Rank *Rank `yaml:"rank,omitempty"`
	// Band is a parity claim's own tolerance where the study states one
	// ("reasonably close" of two figures ×0.82 apart): the band is Band
	// to 1/Band. Zero for the default band (Equivalence).
	Band float64 `yaml:"band,omitempty"`
	// Absolute makes the finding a claim of an absolute figure ("less
	// than 2 ms", "164.3 ms") rather than of a ratio.
	Absolute *Absolute `yaml:"absolute,omitempty"`
	// Cases make a ranking a count over cases ("the worst throughput in
	// 5 of 8 cases"): each case is judged as Rank judges one.
	Cases *Cases `yaml:"cases,omitempty"`
	Here  Here   `yaml:"here"`
}

// Absolute is a claim of a figure: here's num, less den's when den is
// given (a difference: JSON's time less Protobuf's), judged on its
// median's bootstrap interval over runs. Below holds when the whole
// interval lies below it, does not when the whole interval lies above;
// About holds when the whole interval lies within the degree band around
// it, does not when it lies wholly outside. Either leaves a straddling
// interval undecided. One of the two is set.
type Absolute struct {
	Below float64 `yaml:"below,omitempty"`
	About float64 `yaml:"about,omitempty"`
	Unit  string  `yaml:"unit"`
}

// Cases are the cases a counted ranking runs over, each a selector added
// to here's num, and how many of them the claim names the stack first
// in: exactly Count, or at least Count.
type Cases struct {
	Of      []map[string]string `yaml:"of"`
	Count   int                 `yaml:"count"`
	AtLeast bool                `yaml:"at_least,omitempty"`
}

// ParityBand is the band a parity claim's interval must sit inside.
func (c Finding) ParityBand() (lo, hi float64) {
	if c.Band > 0 {
		return min(c.Band, 1/c.Band), max(c.Band, 1/c.Band)
	}
	return 1 / (1 + Equivalence), 1 + Equivalence
}

// Rank is a superlative: which stacks the study ranked in the case, which
// end of the measure is first, and the ranking the study published.
type Rank struct {
	// Among are the stacks compared; each is Here.Num with its stack
	// replaced.
	Among []string `yaml:"among"`
	// First is "lowest" (fastest, smallest, least) or "highest" (most,
	// biggest, slowest).
	First string `yaml:"first"`
	// Paper is the study's ranking, first to last, as its figures or
	// text give it (e.g. "amqp 3.42, grpc 7.37, rest 7.41 ms").
	Paper string `yaml:"paper"`
	// RunnerUp is the study's runner-up, the second stack of its ratio:
	// the degree is judged on the same pair as the paper's, whoever is
	// second here. Empty when the study names no runner-up.
	RunnerUp string `yaml:"runner_up,omitempty"`
	// Last is the stack the claim names at the other end ("Kafka the
	// fewest"): it must come last of all here too. Empty when the claim
	// names only the first.
	Last string `yaml:"last,omitempty"`
}

// complete says whether r names the stacks compared (two or more), which
// end is first and the study's own ranking.
func (r *Rank) complete() bool {
	return len(r.Among) >= 2 && r.Paper != "" && (r.First == "lowest" || r.First == "highest")
}

// Directions a finding may claim.
const (
	Greater = "greater than 1"
	Less    = "less than 1"
	About   = "about 1"
)

// Stated is a ratio a text states in words: "25.1 % faster" is 0.749,
// "64.54 to 72.28 % smaller" is 0.2772 to 0.3546. Low and High are zero
// when the text gives the direction only.
type Stated struct {
	// Source is the id of the study's source the quote is from, for a
	// study typed in from sources rather than seeds.
	Source string  `yaml:"source,omitempty"`
	Low    float64 `yaml:"low,omitempty"`
	High   float64 `yaml:"high,omitempty"`
	Quote  string  `yaml:"quote"`
	Where  string  `yaml:"where"`
	Page   int     `yaml:"page,omitempty"`
}

// Here is the finding's ratio as hopbench measures it: one measure of the
// records (or codec timings) Num selects over the same of Den. A selector
// names record fields and their values (stack, op, model, count, part, ...).
type Here struct {
	Measure string            `yaml:"measure"`
	Num     map[string]string `yaml:"num"`
	Den     map[string]string `yaml:"den"`
	// Num2 and Den2 make the finding an interaction: the ratio num/den
	// over num2/den2, e.g. REST over gRPC with TLS against the same
	// without ("TLS offsets REST's advantage").
	Num2 map[string]string `yaml:"num2,omitempty"`
	Den2 map[string]string `yaml:"den2,omitempty"`
	// Needs says what would measure a claim no measure of hopbench's
	// reads yet (a per-request series, a ramp to 200 clients): such a
	// finding names no measure, and its verdict is "not measured", with
	// these words as the reason.
	Needs string `yaml:"needs,omitempty"`
}

// Interaction reports whether the finding compares two ratios.
func (h Here) Interaction() bool { return len(h.Num2) > 0 }

// Outcome measures judge no ratio: what a schema trial did to a message
// (hopbench's evolution trials, record.evolution) in the runs num picks
// by stack, change and path. MeasureEvolution reads the changed field's
// outcome, MeasureEvolutionOthers that of every field no change touches
// (a misread shows there); holds_when is the outcome the claim expects of
// every trial.
const (
	MeasureEvolution       = "evolution"
	MeasureEvolutionOthers = "evolution_others"
)

// Outcomes are what holds_when may expect of an outcome measure.
var Outcomes = []string{"kept", "dropped", "corrupted", "refused"}

// Outcome reports whether the finding is judged on trials' outcomes.
func (h Here) Outcome() bool {
	return h.Measure == MeasureEvolution || h.Measure == MeasureEvolutionOthers
}

// Units a figure may have.
var Units = []string{"ns/op", "µs", "ms", "s", "B", "kB", "KiB", "MB", "MiB", "req/s", "%", "clients"}

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

// Source is a published text read on the web: its address and what of
// it could be read here (the whole text, its abstract alone, or only a
// summary someone else wrote of it), which a claim read from it says.
type Source struct {
	ID   string `yaml:"id"`
	URL  string `yaml:"url"`
	Read string `yaml:"read"`
}

// SourceOf is the source a finding's quote is from, if the study names
// its sources.
func (s *Study) SourceOf(f Finding) (Source, bool) {
	for _, src := range s.Sources {
		if f.Stated != nil && f.Stated.Source == src.ID {
			return src, true
		}
	}
	return Source{}, false
}

func (s *Study) validate() error {
	if s.Study == "" || s.Citation == "" || (len(s.Seeds) == 0) == (len(s.Sources) == 0) {
		return fmt.Errorf("study, citation and either seeds or sources are required")
	}
	for i, src := range s.Sources {
		if src.ID == "" || !strings.HasPrefix(src.URL, "https://") || src.Read == "" {
			return fmt.Errorf("sources[%d]: id, url (https://) and read (what of it could be read) are required", i)
		}
	}
	for i, f := range s.Findings {
		if _, ok := s.SourceOf(f); len(s.Sources) > 0 && f.Stated != nil && !ok {
			return fmt.Errorf("findings[%d] %s: stated.source %q names none of the study's sources", i, f.ID, f.Stated.Source)
		}
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
		if err := s.validateFinding(c); err != nil {
			return fmt.Errorf("findings[%d] %s: %w", i, c.ID, err)
		}
	}
	return nil
}

func (s *Study) validateFinding(c Finding) error {
	switch {
	case c.ID == "" || c.Claim == "":
		return fmt.Errorf("id and claim are required")
	case c.Here.Outcome():
		return validateOutcomeFinding(c)
	case c.Here.Needs != "":
		return validateUnmeasured(c)
	case c.Absolute != nil:
		return validateAbsolute(c)
	case c.Cases != nil:
		return validateCases(c)
	}
	switch {
	case c.HoldsWhen != Greater && c.HoldsWhen != Less && c.HoldsWhen != About:
		return fmt.Errorf("holds_when %q: want %q, %q or %q (a parity claim)", c.HoldsWhen, Greater, Less, About)
	case c.Rank != nil && !c.Rank.complete():
		return fmt.Errorf("rank needs among (two stacks or more), first (lowest or highest) and the paper's ranking")
	case c.Rank != nil && !contains(c.Rank.Among, c.Here.Num["stack"]):
		return fmt.Errorf("rank: the stack here's num names, %q, is not among %v", c.Here.Num["stack"], c.Rank.Among)
	case c.Rank != nil && (c.Rank.RunnerUp != "" && !contains(c.Rank.Among, c.Rank.RunnerUp) || c.Rank.Last != "" && !contains(c.Rank.Among, c.Rank.Last)):
		return fmt.Errorf("rank: runner_up %q and last %q must each be empty or among %v", c.Rank.RunnerUp, c.Rank.Last, c.Rank.Among)
	case c.Rank != nil && (c.Rank.RunnerUp == c.Here.Num["stack"] || c.Rank.Last == c.Here.Num["stack"]):
		return fmt.Errorf("rank: %q is the stack ranked first; runner_up and last name others", c.Here.Num["stack"])
	case (len(c.Here.Num2) == 0) != (len(c.Here.Den2) == 0) || c.Here.Interaction() && (c.Rank != nil || c.HoldsWhen == About):
		return fmt.Errorf("an interaction needs both num2 and den2, and claims a direction: neither a ranking nor parity")
	case c.Band != 0 && (c.HoldsWhen != About || c.Band < 0.5 || c.Band > 2 || c.Band == 1):
		return fmt.Errorf("band %v: a parity claim's own tolerance, a ratio from 0.5 to 2 other than 1 (holds_when: about 1)", c.Band)
	case c.Rank != nil && c.HoldsWhen == About:
		return fmt.Errorf("a ranking claims a direction, not parity")
	case c.Here.Measure == "" || len(c.Here.Num) == 0 || len(c.Here.Den) == 0 && c.Rank == nil:
		return fmt.Errorf("here needs a measure and num and den selectors (a ranking, num alone)")
	case (c.Ratio == [2]string{}) == (c.Stated == nil):
		return fmt.Errorf("give either ratio (two figure ids) or stated (the ratio in the text's words)")
	case c.Stated != nil:
		if c.Stated.Quote == "" || c.Stated.Where == "" || c.Stated.Low > c.Stated.High {
			return fmt.Errorf("stated needs a quote, where, and low no greater than high")
		}
		return nil
	}
	a, aok := s.Figure(c.Ratio[0])
	b, bok := s.Figure(c.Ratio[1])
	switch {
	case !aok || !bok:
		return fmt.Errorf("ratio %v names a figure that is not listed", c.Ratio)
	case a.Unit != b.Unit:
		return fmt.Errorf("a ratio of %s to %s", a.Unit, b.Unit)
	}
	return nil
}

// validateOutcomeFinding checks a finding judged on trials' outcomes: the
// outcome it expects, the stack, change and path its trials are picked
// by, and the text's words for it (an outcome has no ratio to state).
func validateOutcomeFinding(c Finding) error {
	switch {
	case !contains(Outcomes, c.HoldsWhen):
		return fmt.Errorf("holds_when %q: an outcome measure expects one of %s", c.HoldsWhen, strings.Join(Outcomes, ", "))
	case c.Here.Num["stack"] == "" || c.Here.Num["change"] == "" || c.Here.Num["path"] == "" || len(c.Here.Num) != 3:
		return fmt.Errorf("here.num of an outcome measure names stack, change and path, and nothing else")
	case len(c.Here.Den) > 0 || c.Here.Interaction() || c.Rank != nil || c.Ratio != [2]string{}:
		return fmt.Errorf("an outcome measure has no den, num2, den2, rank or ratio")
	case c.Stated == nil || c.Stated.Quote == "" || c.Stated.Where == "" || c.Stated.High != 0:
		return fmt.Errorf("stated needs the text's quote and where, and no ratio")
	}
	return nil
}

// Published is the finding's ratio as the study published it: low and
// high (equal for one figure), and false when the text gives the
// direction only.
func (s *Study) Published(c Finding) (low, high float64, ok bool) {
	if c.Stated != nil {
		return c.Stated.Low, c.Stated.High, c.Stated.High > 0
	}
	a, _ := s.Figure(c.Ratio[0])
	b, _ := s.Figure(c.Ratio[1])
	return a.Value / b.Value, a.Value / b.Value, true
}

// Holds says whether a ratio measured here points the way the claim does
// (for a parity claim, whether it is 1 within band, a relative tolerance).
func (c Finding) Holds(ratio float64) bool {
	if c.HoldsWhen == About {
		return ratio >= 1/(1+Equivalence) && ratio <= 1+Equivalence
	}
	return Toward(c.HoldsWhen, ratio)
}

// Toward says whether ratio points the way dir (Less or Greater) claims.
func Toward(dir string, ratio float64) bool {
	if dir == Less {
		return ratio < 1
	}
	return ratio > 1
}

// Equivalence is the band of a parity claim: two figures within 10 % of
// each other (a ratio from 1/1.1 to 1.1) are "very similar".
const Equivalence = 0.10

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
