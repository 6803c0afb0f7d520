package experiment

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hopbench/hopbench/internal/ranking"
)

// Round is a round of repetitions beyond the spec's min, as it starts:
// its number (from 0), the scenarios still undecided, its runs and their
// estimated time.
type Round struct {
	Number   int
	Open     []ranking.Open
	Runs     int
	Estimate time.Duration
	// Stopped says why no further round is made, on the last call: every
	// case decided, the most rounds made, or the budget spent.
	Stopped string
}

// rounds makes more rounds of the cases whose rankings are not decided,
// until every one is, the spec's max rounds are made or its budget for
// them is spent. runs are the spec's first rounds.
func (e *execution) rounds(ctx context.Context, runs []Run) error {
	i := slices.IndexFunc(runs, func(r Run) bool { return r.Rounds != nil })
	if i < 0 {
		return nil // a fixed count everywhere
	}
	pol, alpha, began := *runs[i].Rounds, runs[i].Alpha, time.Now()
	for round := pol.Min; ; round++ {
		open := adaptive(ranking.Undecided(e.recs, alpha), runs)
		next := e.roundOf(runs, open, round)
		r := Round{Number: round, Open: open, Runs: len(next), Estimate: Estimate(next)}
		switch {
		case len(open) == 0:
			r.Stopped = "every case decided"
		case round >= pol.Max:
			r.Stopped = "the most rounds made"
		case pol.Budget > 0 && time.Since(began)+r.Estimate > time.Duration(pol.Budget):
			r.Stopped = "the budget for more rounds spent"
		}
		if e.OnRound != nil {
			e.OnRound(r)
		}
		if r.Stopped != "" || ctx.Err() != nil {
			return nil
		}
		cases, err := Cases(next)
		if err != nil {
			return err
		}
		if err := e.runAll(ctx, next, cases); err != nil || ctx.Err() != nil {
			return err
		}
	}
}

// roundOf is round number round of the open scenarios' cases: one run of
// each, shuffled as the first rounds were, indexed after every run made.
func (e *execution) roundOf(runs []Run, open []ranking.Open, round int) []Run {
	var cases []string
	for _, o := range open {
		cases = append(cases, o.Cases...)
	}
	var next []Run
	for _, r := range runs {
		if r.Repetition == 0 && r.Rounds != nil && slices.Contains(cases, r.Case()) {
			r.Repetition = round
			next = append(next, r)
		}
	}
	if e.spec.Order != OrderListed {
		rand.New(rand.NewPCG(e.spec.Seed, uint64(round))).Shuffle(len(next), func(i, j int) { next[i], next[j] = next[j], next[i] })
	}
	for i := range next {
		next[i].Index = len(e.recs) + i
	}
	return next
}

// adaptive keeps the open scenarios that have runs whose repetitions go on
// until decided (a part may have a fixed count).
func adaptive(open []ranking.Open, runs []Run) []ranking.Open {
	var out []ranking.Open
	for _, o := range open {
		if slices.ContainsFunc(runs, func(r Run) bool { return r.Rounds != nil && slices.Contains(o.Cases, r.Case()) }) {
			out = append(out, o)
		}
	}
	return out
}
