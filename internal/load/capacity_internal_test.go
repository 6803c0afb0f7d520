package load

import (
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/results"
)

func TestUnansweredCallsCountAsTheLatest(t *testing.T) {
	for _, c := range []struct {
		answered, unanswered int64
		p, q                 float64
		lost                 bool
	}{
		{2000, 0, 99, 99, false},
		{1985, 15, 99, 99.748, false}, // 15 of 20 in the tail unanswered: the answered p99.75 stands for p99
		{1975, 25, 99, 100, true},     // more unanswered than the tail
		{0, 10, 99, 99, true},
	} {
		q, lost := quantileOfSent(c.answered, c.unanswered, c.p)
		if lost != c.lost || q < c.q-0.001 || q > c.q+0.001 {
			t.Errorf("%d answered, %d not: quantile %.3f lost %v, want %.3f %v", c.answered, c.unanswered, q, lost, c.q, c.lost)
		}
	}
}

func TestPoissonProbesAreHeldToTheArrivalsDrawn(t *testing.T) {
	cfg := Config{Kind: Rate, Rate: 1000, Poisson: true, Duration: time.Second, Warmup: time.Second, Seed: 7}
	n := scheduled(cfg)
	if n == 1000 || n < 900 || n > 1100 {
		t.Errorf("%d Poisson arrivals drawn for a second at 1000/s: want the draw's own count, near but not exactly 1000", n)
	}
	cfg.Poisson = false
	if n := scheduled(cfg); n != 1000 {
		t.Errorf("%d constant arrivals in a second at 1000/s", n)
	}
}

func TestASearchCutShortReadsAsARange(t *testing.T) {
	s := &searcher{cfg: Config{Search: Search{Resolution: 0.05}}, res: &Result{Capacity: &results.SearchResult{RPS: 16000, Above: 19027}}, good: 16000, bad: 19027}
	s.stop("the time budget (15s) ran out")
	if c := s.res.Capacity; !c.CutShort || c.LowerBound || c.String() != "16000–19027" {
		t.Errorf("cut short %v, lower bound %v, reads %q", c.CutShort, c.LowerBound, c)
	}
	s.bad, s.res.Capacity.Above = 0, 0
	s.stop("the time budget (15s) ran out")
	if c := s.res.Capacity; c.CutShort || !c.LowerBound || c.String() != "≥ 16000" {
		t.Errorf("no rate failed: cut short %v, lower bound %v, reads %q", c.CutShort, c.LowerBound, c)
	}
}
