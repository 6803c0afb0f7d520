package stats

import "testing"

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		vs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(c.vs); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.vs, got, c.want)
		}
	}
	vs := []float64{3, 1, 2}
	Median(vs)
	if vs[0] != 3 {
		t.Error("Median sorted what it was given")
	}
}

// The median's interval lies within the runs' range and holds the
// median; it is the same every time for the same runs; one run has none.
func TestMedianInterval(t *testing.T) {
	runs := []float64{400, 334, 418, 350, 393, 382}
	lo, hi := MedianInterval(runs)
	if lo < 334 || hi > 418 || lo > Median(runs) || hi < Median(runs) || lo == hi {
		t.Errorf("[%v, %v] for runs %v", lo, hi, runs)
	}
	if lo2, hi2 := MedianInterval(runs); lo2 != lo || hi2 != hi {
		t.Errorf("a second bootstrap of the same runs gave [%v, %v], the first [%v, %v]", lo2, hi2, lo, hi)
	}
	if lo, hi := MedianInterval([]float64{5}); lo != 0 || hi != 0 {
		t.Errorf("one run: [%v, %v], want zeros", lo, hi)
	}
}
