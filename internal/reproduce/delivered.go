package reproduce

import (
	"fmt"
	"math"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/reference"
)

// MeasureDelivered judges an "it completed" claim as the thesis did: by
// whether a run delivered its reply before it was killed, one yes or no a
// run, every run counted (a run killed by its memory limit included). Two
// sides' counts are set against each other by Fisher's exact test.
const MeasureDelivered = "delivered"

func init() { Measures[MeasureDelivered] = "runs" }

// deliveredReply says whether a run delivered at least one good reply:
// in its measured window (late ones count: they were delivered), or
// before it, in the warm-up, which a record tells by the body of the last
// good reply (response_body_bytes, set on any good reply of the run). A
// node killed while serving its second request delivered its first.
func deliveredReply(r *results.Record) bool {
	return r.Requests-(r.Errors-r.ErrorsByClass[results.ClassOverSLA]) > 0 || r.ResponseBodyBytes > 0
}

// delivered judges a finding on the runs of each side that delivered a
// reply: the ratio is of the two shares, its direction decided by
// Fisher's exact test (two-sided) at Alpha.
func (m Measured) delivered(row *Row) {
	f := row.Finding
	sides := [2]*Value{&row.Num, &row.Den}
	var yes, n [2]int
	for i, sel := range []map[string]string{f.Here.Num, f.Here.Den} {
		recs, err := m.pick(sel)
		if err != nil {
			row.Verdict, row.Why = NotMeasured, err.Error()
			return
		}
		runs := make([]float64, len(recs))
		for k := range recs {
			if deliveredReply(&recs[k]) {
				runs[k], yes[i] = 1, yes[i]+1
			}
		}
		n[i] = len(recs)
		*sides[i] = Value{V: float64(yes[i]) / float64(n[i]), Unit: "of runs delivered a reply", Of: fmt.Sprintf("%d of %d: %s", yes[i], n[i], recs[0].Case), Runs: runs}
	}
	row.Ratio = row.Num.V / row.Den.V
	p := FisherExact(yes[0], n[0]-yes[0], yes[1], n[1]-yes[1])
	row.Test = fmt.Sprintf("Fisher's exact test, %d of %d against %d of %d runs delivered a reply: p=%.2g", yes[0], n[0], yes[1], n[1], p)
	toward := reference.Toward(f.HoldsWhen, row.Ratio)
	switch {
	case row.Num.V == row.Den.V && (row.Num.V == 0 || row.Num.V == 1):
		row.Verdict, row.Why = Inconclusive, "every run of both sides came out the same way: nothing here sets them apart"
		if row.Num.V == 1 {
			row.Why = "every run of both sides delivered a reply: the failure claimed did not happen here"
		}
	case p > Alpha:
		row.Verdict, row.Why = Inconclusive, fmt.Sprintf("no significant difference at α=%g: more runs a side would tell a difference this small", Alpha)
	case !toward:
		row.Verdict = DoesNotHold
	default:
		row.Verdict, row.Degree = row.degree(f.HoldsWhen, true)
	}
}

// FisherExact is the two-sided p-value of Fisher's exact test on the 2×2
// table [[a, b], [c, d]]: the probability, margins fixed, of a table at
// most as likely as the one seen.
func FisherExact(a, b, c, d int) float64 {
	row1, col1, total := a+b, a+c, a+b+c+d
	seen := hypergeometric(a, row1, col1, total)
	var p float64
	for x := max(0, row1+col1-total); x <= min(row1, col1); x++ {
		if q := hypergeometric(x, row1, col1, total); q <= seen*(1+1e-7) {
			p += q
		}
	}
	return min(p, 1)
}

// hypergeometric is the probability of x in the table's top-left cell
// with its margins fixed.
func hypergeometric(x, row1, col1, total int) float64 {
	return math.Exp(logChoose(col1, x) + logChoose(total-col1, row1-x) - logChoose(total, row1))
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
