package reproduce

import (
	"fmt"
	"math"

	"github.com/hopbench/hopbench/internal/results"
)

// MeasureEarlyFluctuation is how much a run's response times fluctuate in
// the first third of its window, as rest-grpc reads its graphs ("more
// fluctuation ..., especially in the initial phase"): the coefficient of
// variation, in %, of the per-second p99 over the window's first third
// of seconds (at least 2). The study defines no measure; this one reads
// the upper excursions a response-time graph shows, second by second.
const MeasureEarlyFluctuation = "early_fluctuation"

func init() { Measures[MeasureEarlyFluctuation] = "%" }

// earlyFluctuation is a run's MeasureEarlyFluctuation. A second without
// its latency (no reply in it, or filed after it closed by a hopbench
// before 2026-11-25) leaves it unread.
func earlyFluctuation(r *results.Record) (float64, error) {
	n := max(2, (len(r.Series)+2)/3)
	if len(r.Series) < n {
		return 0, fmt.Errorf("%d seconds of series: the first third needs %d or more", len(r.Series), n)
	}
	var sum, sq float64
	for _, s := range r.Series[:n] {
		if s.P99Us == 0 {
			return 0, fmt.Errorf("second %d of the series has no latency (a record made before hopbench kept it at slow rates: run again)", s.T)
		}
		v := float64(s.P99Us)
		sum, sq = sum+v, sq+v*v
	}
	mean := sum / float64(n)
	sd := math.Sqrt(max(0, sq/float64(n)-mean*mean))
	return 100 * sd / mean, nil
}
