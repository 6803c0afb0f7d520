package stats

import (
	"math/rand/v2"
	"slices"
)

// Confidence of the intervals hopbench states over repeated runs (the
// reproductions' verdicts, thresholds), and the resamples that make them.
const (
	Confidence = 0.95
	Resamples  = 4000
)

// MinRuns is how many runs a side needs before anything is decided from
// their spread: with four against four a Mann–Whitney U test can reach
// p < 0.05, with three against three it never can; and a threshold is
// judged on the interval of its median from four runs on.
const MinRuns = 4

// Median is the median of vs (the mean of the middle two for an even
// count); 0 for none. vs is left as it is.
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	mid := len(s) / 2
	if len(s)%2 == 0 {
		return (s[mid-1] + s[mid]) / 2
	}
	return s[mid]
}

// Bootstrap is the Confidence interval of stat over the medians of the
// sides, each side's runs resampled with replacement Resamples times
// (a percentile bootstrap); zeros when a side has fewer than two runs.
// Seeded: one set of runs gives one interval.
func Bootstrap(sides [][]float64, stat func(medians []float64) float64) (lo, hi float64) {
	for _, s := range sides {
		if len(s) < 2 {
			return 0, 0
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	draw := make([][]float64, len(sides))
	for i, s := range sides {
		draw[i] = make([]float64, len(s))
	}
	medians := make([]float64, len(sides))
	stats := make([]float64, Resamples)
	for i := range stats {
		for k, s := range sides {
			for j := range draw[k] {
				draw[k][j] = s[rng.IntN(len(s))]
			}
			medians[k] = Median(draw[k])
		}
		stats[i] = stat(medians)
	}
	slices.Sort(stats)
	tail := (1 - Confidence) / 2
	return stats[int(tail*Resamples)], stats[int((1-tail)*Resamples)-1]
}

// MedianInterval is the Confidence interval of the median of one side's
// runs, by Bootstrap; zeros for fewer than two runs.
func MedianInterval(runs []float64) (lo, hi float64) {
	return Bootstrap([][]float64{runs}, func(m []float64) float64 { return m[0] })
}
