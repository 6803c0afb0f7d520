package reproduce

import (
	"math"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

func TestEarlyFluctuationReadsTheFirstThirdOfTheSeries(t *testing.T) {
	series := func(p99s ...int64) *results.Record {
		r := &results.Record{}
		for i, v := range p99s {
			r.Series = append(r.Series, results.Second{T: i, Requests: 5, P99Us: v, P50Us: v / 2})
		}
		return r
	}
	steady, _ := earlyFluctuation(series(100, 100, 100, 900, 10, 900))
	shaky, _ := earlyFluctuation(series(50, 150, 100, 100, 100, 100))
	if steady != 0 || math.Abs(shaky-50) > 1e-9 {
		t.Errorf("steady start %v %%, shaky start %v %%; want 0 and 50 (the first 2 of 6 seconds: 50 and 150)", steady, shaky)
	}
	if _, err := earlyFluctuation(series(100, 0, 100)); err == nil || !strings.Contains(err.Error(), "run again") {
		t.Errorf("a second without its latency was read: %v", err)
	}
}
