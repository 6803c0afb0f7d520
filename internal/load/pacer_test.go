package load

import (
	"math"
	"slices"
	"testing"
	"time"
)

func drain(p Pacer) []time.Duration {
	var out []time.Duration
	for {
		d, ok := p.Next()
		if !ok {
			return out
		}
		out = append(out, d)
	}
}

func TestConstantIsExactAndEndsAtTheDuration(t *testing.T) {
	dues := drain(&Constant{Rate: 1000, Duration: 2 * time.Second})
	if len(dues) != 2000 || dues[0] != 0 || dues[1] != time.Millisecond || dues[1999] != 1999*time.Millisecond {
		t.Fatalf("%d dues, first %v %v, last %v", len(dues), dues[0], dues[1], dues[len(dues)-1])
	}
	// A rate that does not divide a second evenly must not drift.
	dues = drain(&Constant{Rate: 3, Duration: 100 * time.Second})
	if len(dues) != 300 || dues[299] != 99666666666 {
		t.Fatalf("rate 3: %d dues, last %v", len(dues), dues[len(dues)-1])
	}
}

func TestPoissonHasItsRateAndIsRepeatable(t *testing.T) {
	a := drain(NewPoisson(2000, 50*time.Second, 7))
	if got := float64(len(a)) / 50; math.Abs(got-2000)/2000 > 0.01 {
		t.Errorf("mean rate %.1f/s over 50 s, want 2000 within 1%%", got)
	}
	gaps := 0
	for i := 1; i < len(a); i++ {
		if a[i]-a[i-1] > 2*time.Millisecond { // P(gap > 4 mean gaps) = e^-4 ≈ 1.8%
			gaps++
		}
	}
	if frac := float64(gaps) / float64(len(a)); frac < 0.012 || frac > 0.025 {
		t.Errorf("%.3f of gaps exceed 4 mean gaps, want about e^-4 = 0.018 (exponential gaps)", frac)
	}
	b := drain(NewPoisson(2000, 50*time.Second, 7))
	if len(a) != len(b) || a[len(a)-1] != b[len(b)-1] {
		t.Error("the same seed gave another schedule")
	}
}

func TestRateRampStepsUpAndHoldsTheTop(t *testing.T) {
	r := &RateRamp{Steps: Steps{From: 10, To: 30, Step: 10, Every: time.Second}, Duration: 5 * time.Second}
	perSecond := make([]int, 5)
	for _, d := range drain(r) {
		perSecond[int(d/time.Second)]++
	}
	if want := []int{10, 20, 30, 30, 30}; !slices.Equal(perSecond, want) {
		t.Errorf("requests per second %v, want %v", perSecond, want)
	}
}

func TestStepsAsTheStudyRampedClients(t *testing.T) {
	s := Steps{From: 10, To: 200, Step: 10, Every: 30 * time.Second}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.ValueAt(0) != 10 || s.ValueAt(59*time.Second) != 20 || s.ValueAt(time.Hour) != 200 {
		t.Errorf("values %v %v %v", s.ValueAt(0), s.ValueAt(59*time.Second), s.ValueAt(time.Hour))
	}
	if s.Duration() != 20*30*time.Second || s.StepAt(s.Duration()-1) != 19 {
		t.Errorf("duration %v, last step %d; want 10 min and step 19", s.Duration(), s.StepAt(s.Duration()-1))
	}
	for _, bad := range []Steps{{From: 0, To: 10, Step: 1, Every: time.Second}, {From: 10, To: 5, Step: 1, Every: time.Second},
		{From: 1, To: 10, Step: 0, Every: time.Second}, {From: 1, To: 10, Step: 1}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
