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
	want := map[string]float64{"proto-marshals-faster": 5.9, "proto-unmarshals-faster": 2.4, "proto-request-smaller": 1.52, "json-unmarshals-slower": 2.32, "proto-unmarshals-slower": 5.70}
	for _, f := range ensor.Findings {
		got, _, _ := ensor.Published(f)
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
		if len(s.Findings) != 16 || len(s.Figures) != 30 {
			t.Errorf("%d findings, %d figures; want 14 + the generator check + the TLS interaction, and 28 medians + 2 IxLoad checks", len(s.Findings), len(s.Figures))
		}
		return
	}
	t.Fatal("no rest-grpc study")
}
