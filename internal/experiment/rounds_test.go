package experiment

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/report"
	"github.com/hopbench/hopbench/internal/results"
)

// With repetitions until decided, a pair of stacks ×2 apart is separated
// after the first 4 rounds and gets no more; a pair ×1.02 apart in noise
// of ±10 % is neither separated nor tied, and goes on to the most rounds.
// The verdict says why each stopped.
func TestRoundsGoOnOnlyWhereTheRankingIsUndecided(t *testing.T) {
	spec := `
stacks: [rest, grpc]
payloads: [{model: text, counts: [10, 1000]}]
loads: [{closed: {clients: 1}}]
duration: 1s
warmup: 0s
repetitions: {min: 4, max: 8, until: decided}
`
	rng := rand.New(rand.NewPCG(7, 7))
	x := &Runner{Bin: "hopbench", Dir: t.TempDir()}
	x.measure = func(_ context.Context, r Run, rec *results.Record) error {
		p50 := 1000.0
		switch {
		case r.Count == 10 && r.Stack == "grpc":
			p50 *= 2 // ×2: decided at once
		case r.Count == 1000 && r.Stack == "grpc":
			p50 *= 1.02 // ×1.02 in ±10 % noise: undecided
		}
		rec.Outcome, rec.Requests, rec.P50Us = results.OutcomeOK, 100, int64(p50*(0.9+0.2*rng.Float64()))
		rec.RPS = 1e6 / float64(rec.P50Us)
		return nil
	}
	var stops []string
	x.OnRound = func(r Round) {
		if r.Stopped != "" {
			stops = append(stops, r.Stopped)
		}
	}
	recs := runSpec(t, x, spec)
	runs := map[int]int{}
	for _, r := range recs {
		runs[r.Count]++
	}
	if runs[10] != 2*4 || runs[1000] != 2*8 {
		t.Errorf("runs by count %v: want 8 of text×10 (4 rounds) and 16 of text×1000 (8 rounds)", runs)
	}
	if len(stops) != 1 || stops[0] != "the most rounds made" {
		t.Errorf("stopped %q", stops)
	}
	r, err := report.Build("rounds", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(r.Verdict.Lines(), "\n")
	for _, want := range []string{"decided after 4 rounds", "undecided after 8 rounds, the most allowed"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the verdict does not say %q:\n%s", want, lines)
		}
	}
}
