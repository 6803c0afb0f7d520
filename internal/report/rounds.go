package report

import (
	"encoding/json"
	"fmt"

	"github.com/hopbench/hopbench/internal/ranking"
	"github.com/hopbench/hopbench/internal/results"
)

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
		if ranking.Decided(ranked[i].runs, ranked[i+1].runs, alpha) == "" {
			if made >= policy.Rounds.Max {
				return fmt.Sprintf("undecided after %d rounds, the most allowed: %s and %s are neither separated nor tied", made, ranked[i].stack, ranked[i+1].stack)
			}
			return fmt.Sprintf("undecided after %d rounds (the budget was spent, or the experiment stopped): %s and %s are neither separated nor tied", made, ranked[i].stack, ranked[i+1].stack)
		}
	}
	return fmt.Sprintf("decided after %d rounds", made)
}
