package cli

import (
	"strings"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// PrintCapacity is what hopbench load prints for a capacity search that
// found c through steps (docs/capacity.md's example is checked against it); an
// open loop's uncorrected row is there, as in every capacity search.
func PrintCapacity(c *results.SearchResult, steps []results.Step) (string, error) {
	o := &loadOutput{Stack: "rest", Target: "127.0.0.1:7171", Op: "echo", Model: "text", Count: 100,
		Load: "capacity", Figures: results.Figures{Capacity: c, Uncorrected: &stats.Summary{}}, Steps: steps}
	var b strings.Builder
	err := o.write(&b, "table")
	return b.String(), err
}
