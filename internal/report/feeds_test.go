package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// Feed cases get a Feeds section (each stack's first and last message
// and its messages a second), a second ranking by the first message, and
// a headline named for feeds; a report without feeds has neither.
func TestFeedsAreShownByTheirFirstAndLastMessage(t *testing.T) {
	var recs []results.Record
	for _, r := range fixture(t) {
		if r.Stack != "rest" && r.Stack != "grpc" || r.Op != "echo" {
			continue
		}
		f := r
		f.Op, f.Case = "feed:10", strings.Replace(r.Case, " echo ", " feed:10 ", 1)
		f.FirstMessage = &stats.Summary{P50Us: r.P50Us / 4, P99Us: r.P99Us / 4}
		f.MessagesPerS = 10 * r.RPS
		recs = append(recs, f)
	}
	if len(recs) == 0 {
		t.Fatal("the fixture has no echo of rest or grpc: has it changed?")
	}
	r, err := Build("feeds", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	sec := sectionOf(r, "feeds")
	if sec == nil || len(sec.Figures) == 0 {
		t.Fatal("no feeds section")
	}
	for _, f := range sec.Figures {
		for _, row := range f.Table.Rows {
			if row[1] == "—" || row[1] == row[3] || row[5] == "0" {
				t.Errorf("%s: %v, want the first message's p50 (a quarter of the last's) and the messages a second", f.Title, row)
			}
		}
	}
	heads := map[string]bool{}
	for _, rk := range r.Verdict.Rankings {
		heads[rk.Figure] = true
	}
	if !heads["time to the first message, p50, lower is better"] || heads["p50, lower is better"] || heads["throughput, higher is better"] {
		t.Errorf("the verdict's figures %v: want feeds ranked by their first message too, and their headline named for feeds", heads)
	}
	plain, err := Build("unary", nil, fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if sectionOf(plain, "feeds") != nil || slices.ContainsFunc(plain.Verdict.Rankings, func(rk Ranking) bool { return strings.Contains(rk.Case, "first message") }) {
		t.Error("a report without feeds has a feeds section or a first-message ranking")
	}
}
