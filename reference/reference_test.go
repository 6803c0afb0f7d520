package reference

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEveryStudyLoadsAndNamesItsSeeds(t *testing.T) {
	studies, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(studies) == 0 {
		t.Fatal("no studies")
	}
	for _, s := range studies {
		for _, seed := range s.Seeds {
			// The seeds sit beside the repository in the workplace; where
			// they are present, each one named must exist.
			dir := filepath.Join("..", "..", "shared", "seeds")
			if _, err := os.Stat(dir); err != nil {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, seed)); err != nil {
				t.Errorf("%s: seed %s: %v", s.Study, seed, err)
			}
		}
	}
}

// The article's own ratios, as it states them: nearly 6 times, 2.4 times,
// and 45% greater.
func TestEnsorFindingsMatchTheText(t *testing.T) {
	studies, _ := Load()
	var ensor *Study
	for i := range studies {
		if studies[i].Study == "ensor" {
			ensor = &studies[i]
		}
	}
	if ensor == nil {
		t.Fatal("no ensor study")
	}
	want := map[string]float64{"proto-marshals-faster": 5.9, "proto-unmarshals-faster": 2.4, "proto-request-smaller": 1.52, "json-unmarshals-slower": 2.32, "proto-unmarshals-slower": 5.70, "unmarshal-gap-narrower": 0.408}
	for _, f := range ensor.Findings {
		got, _, ok := ensor.Published(f)
		if !ok {
			continue // a claim the article states without a ratio
		}
		// A finding checked on the JVM too states the same published ratio.
		if math.Abs(got-want[strings.TrimSuffix(f.ID, "-jvm")]) > 0.05 {
			t.Errorf("%s: published ratio %.2f, want %.2f", f.ID, got, want[strings.TrimSuffix(f.ID, "-jvm")])
		}
		if !f.Holds(got) {
			t.Errorf("%s: the study's own figures do not hold its claim", f.ID)
		}
	}
}

func TestValidateRefusesBrokenData(t *testing.T) {
	here := Here{Measure: "p50", Num: map[string]string{"stack": "a"}, Den: map[string]string{"stack": "b"}}
	ok := Study{Study: "x", Citation: "c", Seeds: []string{"s"}, Figures: []Figure{
		{ID: "a", Value: 2, Unit: "B", Condition: "c", Where: "w"}, {ID: "b", Value: 1, Unit: "B", Condition: "c", Where: "w"}},
		Findings: []Finding{{ID: "f", Claim: "c", Ratio: [2]string{"a", "b"}, HoldsWhen: "greater than 1", Here: here}}}
	if err := ok.validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Study){
		"unknown unit":   func(s *Study) { s.Figures[0].Unit = "furlongs" },
		"repeated id":    func(s *Study) { s.Figures[1].ID = "a" },
		"no condition":   func(s *Study) { s.Figures[0].Condition = "" },
		"unknown figure": func(s *Study) { s.Findings[0].Ratio[1] = "z" },
		"bad direction":  func(s *Study) { s.Findings[0].HoldsWhen = "bigger" },
		"no here":        func(s *Study) { s.Findings[0].Here = Here{} },
		"ratio and stated": func(s *Study) {
			s.Findings[0].Stated = &Stated{Low: 1, High: 2, Quote: "q", Where: "w"}
		},
		"stated without a quote": func(s *Study) {
			s.Findings[0].Ratio, s.Findings[0].Stated = [2]string{}, &Stated{Low: 1, High: 2, Where: "w"}
		},
		"no citation": func(s *Study) { s.Citation = "" },
		"seeds and sources both": func(s *Study) {
			s.Sources = []Source{{ID: "web", URL: "https://example.org/a", Read: "the abstract"}}
		},
		"a source without what was read": func(s *Study) {
			s.Seeds, s.Sources = nil, []Source{{ID: "web", URL: "https://example.org/a"}}
		},
		"a quote naming no source": func(s *Study) {
			s.Seeds, s.Sources = nil, []Source{{ID: "web", URL: "https://example.org/a", Read: "the abstract"}}
			s.Findings[0].Ratio, s.Findings[0].Stated = [2]string{}, &Stated{Source: "blog", Low: 2, High: 2, Quote: "q", Where: "w"}
		},
		"an outcome measure expecting a direction": func(s *Study) {
			s.Findings[0] = outcomeFinding()
			s.Findings[0].HoldsWhen = "less than 1"
		},
		"an outcome measure with a den": func(s *Study) {
			s.Findings[0] = outcomeFinding()
			s.Findings[0].Here.Den = map[string]string{"stack": "rest"}
		},
		"an outcome measure without a path": func(s *Study) {
			s.Findings[0] = outcomeFinding()
			delete(s.Findings[0].Here.Num, "path")
		},
	} {
		s := ok
		s.Figures = append([]Figure(nil), ok.Figures...)
		s.Findings = append([]Finding(nil), ok.Findings...)
		mutate(&s)
		if err := s.validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A study read on the web names its sources instead of seeds, and each
// quote the source it is from, with what of it could be read.
func TestAStudyFromSourcesSaysWhatWasRead(t *testing.T) {
	s, err := Lookup("transports")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Findings {
		src, ok := s.SourceOf(f)
		if !ok || src.Read == "" || f.Stated.Quote == "" {
			t.Errorf("%s: source %+v, %v", f.ID, src, ok)
		}
	}
	if src, _ := s.SourceOf(s.Findings[0]); !strings.Contains(src.Read, "summary") {
		t.Errorf("kmcd.dev's figures are read from a summary, and its source must say so: %q", src.Read)
	}
}

// outcomeFinding is a valid finding judged on schema trials.
func outcomeFinding() Finding {
	return Finding{ID: "o", Claim: "c", HoldsWhen: "kept", Stated: &Stated{Quote: "q", Where: "w"},
		Here: Here{Measure: MeasureEvolution, Num: map[string]string{"stack": "rest+proto", "change": "field-added", "path": "v2,v1,v2"}}}
}

func TestAnOutcomeFindingValidates(t *testing.T) {
	if err := validateOutcomeFinding(outcomeFinding()); err != nil {
		t.Fatal(err)
	}
}

// Seven tasks, each without and with TLS, REST against gRPC: fourteen
// medians each, and a finding for each pair saying which was faster.
func TestRestGrpcHasEveryTaskWithAndWithoutTLS(t *testing.T) {
	studies, _ := Load()
	for _, s := range studies {
		if s.Study != "rest-grpc" {
			continue
		}
		if len(s.Findings) != 20 || len(s.Figures) != 30 {
			t.Errorf("%d findings, %d figures; want 14 + the generator check + two TLS interactions + the TLS count + two claims no measure reads, and 28 medians + 2 IxLoad checks", len(s.Findings), len(s.Figures))
		}
		return
	}
	t.Fatal("no rest-grpc study")
}

// Every quote is the text's own words: found in one of the study's seeds,
// runs of spaces and line breaks taken as one space.
func TestEveryQuoteIsInItsSeed(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "seeds")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("the seeds are not beside the repository")
	}
	studies, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	oneSpace := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, s := range studies {
		if len(s.Sources) > 0 {
			continue // read on the web, not from the seeds: each quote names its source (validate)
		}
		var text strings.Builder
		for _, seed := range s.Seeds {
			data, err := os.ReadFile(filepath.Join(dir, seed))
			if err != nil {
				t.Fatal(err)
			}
			text.WriteString(oneSpace(string(data)) + "\n")
		}
		for _, f := range s.Findings {
			if f.Stated != nil && !strings.Contains(text.String(), oneSpace(f.Stated.Quote)) {
				t.Errorf("%s/%s: quote not in the seeds: %q", s.Study, f.ID, f.Stated.Quote)
			}
		}
	}
}

// The three kinds judged on no ratio: an absolute figure, a count of
// rankings over cases, a claim no measure reads. Each valid one passes;
// each broken one is refused with the field named.
func TestTheKindsWithoutARatioValidate(t *testing.T) {
	stated := &Stated{Quote: "q", Where: "w"}
	absolute := func() Finding {
		return Finding{ID: "a", Claim: "c", Stated: stated, Absolute: &Absolute{Below: 2, Unit: "ms"},
			Here: Here{Measure: "mean", Num: map[string]string{"stack": "rest"}, Den: map[string]string{"stack": "rest+proto"}}}
	}
	cases := func() Finding {
		return Finding{ID: "k", Claim: "c", Stated: stated, HoldsWhen: Less,
			Rank:  &Rank{Among: []string{"rest", "kafka"}, First: "lowest", Paper: "p"},
			Cases: &Cases{Of: []map[string]string{{"count": "10"}, {"count": "100"}}, Count: 1},
			Here:  Here{Measure: "good_rps", Num: map[string]string{"stack": "kafka"}}}
	}
	unmeasured := func() Finding {
		return Finding{ID: "n", Claim: "c", Stated: stated, Here: Here{Needs: "a ramp to 200 clients"}}
	}
	s := &Study{}
	for _, f := range []Finding{absolute(), cases(), unmeasured()} {
		if err := s.validateFinding(f); err != nil {
			t.Errorf("%s: %v", f.ID, err)
		}
	}
	for name, c := range map[string]struct {
		f     Finding
		field string
	}{
		"absolute with two bounds":   {func() Finding { f := absolute(); f.Absolute.About = 3; return f }(), "absolute"},
		"absolute in furlongs":       {func() Finding { f := absolute(); f.Absolute.Unit = "furlongs"; return f }(), "absolute.unit"},
		"absolute with a direction":  {func() Finding { f := absolute(); f.HoldsWhen = Less; return f }(), "holds_when"},
		"absolute with a rank":       {func() Finding { f := absolute(); f.Rank = cases().Rank; return f }(), "absolute"},
		"cases without a rank":       {func() Finding { f := cases(); f.Rank = nil; return f }(), "cases"},
		"cases counting past all":    {func() Finding { f := cases(); f.Cases.Count = 3; return f }(), "cases"},
		"a case naming a stack":      {func() Finding { f := cases(); f.Cases.Of[0] = map[string]string{"stack": "rest"}; return f }(), "cases.of[0]"},
		"cases with a runner-up":     {func() Finding { f := cases(); f.Rank.RunnerUp = "rest"; return f }(), "runner_up"},
		"unmeasured with a measure":  {func() Finding { f := unmeasured(); f.Here.Measure = "p50"; return f }(), "here.needs"},
		"unmeasured without a quote": {func() Finding { f := unmeasured(); f.Stated = nil; return f }(), "here.needs"},
	} {
		err := s.validateFinding(c.f)
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v; want an error naming %s", name, err, c.field)
		}
	}
}
