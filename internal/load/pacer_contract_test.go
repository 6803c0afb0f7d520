package load

import (
	"math"
	"testing"
	"time"
)

// million is how many requests each pacer of the contract makes due at
// least: enough that a pacer adding rounded gaps would drift visibly.
const million = 1_000_000

// pacerCase is one pacer under the contract. at is the due time of
// request n, in nanoseconds from the start, for pacers whose schedule is
// fixed; rate is the mean rate of those whose gaps are drawn.
type pacerCase struct {
	name  string
	new   func() Pacer
	end   time.Duration
	ticks int64 // for fixed schedules: requests made due
	at    func(n int64) float64
	rate  float64
}

func pacerCases() []pacerCase {
	const s = float64(time.Second)
	return []pacerCase{
		{
			// 1/3000 s is no whole number of nanoseconds: adding the
			// gap, rounded, would drift 1/3 ns a request, 0.4 ms in all.
			name: "constant", end: 400 * time.Second, ticks: 1_200_000,
			new: func() Pacer { return &Constant{Rate: 3000, Duration: 400 * time.Second} },
			at:  func(n int64) float64 { return float64(n) * s / 3000 },
		},
		{
			name: "rate ramp", end: 250 * time.Second, ticks: 300_000 + 500_000 + 350_000,
			new: func() Pacer {
				return &RateRamp{Steps: Steps{From: 3000, To: 7000, Step: 2000, Every: 100 * time.Second}, Duration: 250 * time.Second}
			},
			at: func(n int64) float64 {
				switch {
				case n < 300_000:
					return float64(n) * s / 3000
				case n < 800_000:
					return 100*s + float64(n-300_000)*s/5000
				}
				return 200*s + float64(n-800_000)*s/7000
			},
		},
		{
			name: "poisson", end: 1010 * time.Second, rate: 1000,
			new: func() Pacer { return NewPoisson(1000, 1010*time.Second, 11) },
		},
		{
			// Mean gaps of 10 ns: a pacer that rounded each gap to whole
			// nanoseconds would be 5 % off, far beyond the 1 % allowed.
			name: "poisson at 10 ns gaps", end: 10100 * time.Microsecond, rate: 1e8,
			new: func() Pacer { return NewPoisson(1e8, 10100*time.Microsecond, 12) },
		},
	}
}

// Every pacer makes requests due in order, from the start, before its
// end, and then no more; a fixed schedule puts request n where its
// formula says, to the nanosecond, after a million requests as after the
// first (due times are absolute, not sums of gaps); drawn gaps average
// 1/rate within 1 % over a million requests. It only asks for due times,
// so it takes no time.
func TestEveryPacerKeepsTheContract(t *testing.T) {
	for _, c := range pacerCases() {
		t.Run(c.name, func(t *testing.T) {
			p := c.new()
			var n int64
			var first, last time.Duration
			for {
				due, ok := p.Next()
				if !ok {
					break
				}
				if due < 0 || due >= c.end || due < last {
					t.Fatalf("request %d due at %v after %v: want in order, within [0, %v)", n, due, last, c.end)
				}
				if c.at != nil {
					if want := c.at(n); math.Abs(float64(due)-want) > 1 {
						t.Fatalf("request %d due at %dns, want %.1fns: the schedule drifted", n, due, want)
					}
				}
				if n == 0 {
					first = due
				}
				last = due
				n++
			}
			if _, ok := p.Next(); ok {
				t.Error("a pacer that ended made another request due")
			}
			if n < million {
				t.Fatalf("%d requests, want at least %d", n, million)
			}
			if c.at != nil && n != c.ticks {
				t.Errorf("%d requests, want %d", n, c.ticks)
			}
			if c.rate > 0 {
				mean := float64(last-first) / float64(n-1)
				if want := float64(time.Second) / c.rate; math.Abs(mean-want)/want > 0.01 {
					t.Errorf("mean gap %.4gns over %d requests, want %.4gns within 1%%", mean, n, want)
				}
			}
		})
	}
}
