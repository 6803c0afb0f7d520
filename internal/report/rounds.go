package report

import (
	"encoding/json"
	"fmt"
	"slices"

	"golang.org/x/perf/benchmath"

	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
)

// TieMargin is how close two stacks' medians must be, the whole interval
// of their ratio within ×1/1.05 to ×1.05, to count as tied: a pair that
// more runs would not separate.
const TieMargin = 0.05

// Open is a scenario whose ranking is not decided: a pair of neighbouring
// stacks neither separated nor tied.
type Open struct {
	Scenario string
	Pair     [2]string
	Cases    []string // the records' cases of the scenario, every stack
}

// Undecided are the scenarios of recs whose rankings are not decided at
// alpha: some neighbouring pair of stacks in the ranking neither differs
// significantly (Mann–Whitney U) nor is tied (TieMargin). Stacks with no
// figure do not hold a ranking open; ramps, which rank nothing, are left
// out.
func Undecided(recs []results.Record, alpha float64) ([]Open, error) {
	cases, err := measure(recs)
	if err != nil {
		return nil, err
	}
	runs := perCase(recs)
	keys, by := groups(cases, (*measured).scenario)
	var open []Open
	for _, k := range keys {
		f, ok := headline(by[k][0].Load)
		if !ok {
			continue
		}
		ranked, _ := standings(by[k], runs, f)
		for i := 0; i+1 < len(ranked); i++ {
			if decided(ranked[i], ranked[i+1], alpha) == "" {
				o := Open{Scenario: k, Pair: [2]string{ranked[i].stack, ranked[i+1].stack}}
				for _, c := range by[k] {
					o.Cases = append(o.Cases, c.Case)
				}
				open = append(open, o)
				break
			}
		}
	}
	return open, nil
}

// decided says how a pair of neighbours is decided ("separated",
// "tied"), or "" when it is not.
func decided(a, b point, alpha float64) string {
	if len(a.runs) < 2 || len(b.runs) < 2 {
		return ""
	}
	if lo, hi := reproduce.RatioInterval(a.runs, b.runs); lo >= 1/(1+TieMargin) && hi <= 1+TieMargin {
		return "tied"
	}
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a.runs), th), benchmath.NewSample(slices.Clone(b.runs), th))
	if c.P <= alpha {
		return "separated"
	}
	return ""
}

// roundsWords says, for a ranking made with repetitions until decided,
// why its rounds stopped: "decided after 4 rounds", "undecided after 10
// rounds, the most allowed", "undecided after 6 rounds: the budget was
// spent". Empty for a fixed count of repetitions.
func roundsWords(ranked []point, runs [][]*results.Record, alpha float64) string {
	var policy struct {
		Rounds *struct{ Min, Max int } `json:"rounds"`
		Alpha  float64                 `json:"alpha"`
	}
	made := 0
	for _, rs := range runs {
		for _, r := range rs {
			made = max(made, r.Repetition+1)
			if policy.Rounds == nil && len(r.Config) > 0 {
				_ = json.Unmarshal(r.Config, &policy)
			}
		}
	}
	if policy.Rounds == nil {
		return ""
	}
	if policy.Alpha > 0 {
		alpha = policy.Alpha
	}
	for i := 0; i+1 < len(ranked); i++ {
		if decided(ranked[i], ranked[i+1], alpha) == "" {
			if made >= policy.Rounds.Max {
				return fmt.Sprintf("undecided after %d rounds, the most allowed: %s and %s are neither separated nor tied", made, ranked[i].stack, ranked[i+1].stack)
			}
			return fmt.Sprintf("undecided after %d rounds (the budget was spent, or the experiment stopped): %s and %s are neither separated nor tied", made, ranked[i].stack, ranked[i+1].stack)
		}
	}
	return fmt.Sprintf("decided after %d rounds", made)
}
