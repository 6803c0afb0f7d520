package experiment

import (
	"strconv"
	"testing"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/results"
)

// The truths, from a real run: a generator of v2 sends through a
// chain whose middle node is v1; Protobuf keeps the field v2 added and
// encoding/json drops it, and a field v1 sends that v2 removed and
// reserved is misread as no other. The load then runs on the mixed chain
// with no error: v2's generator reads its replies.
func TestAnEvolutionRunRecordsWhatEachCodecKeeps(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	x := &Runner{Bin: hopbenchBin(t), Dir: t.TempDir()}
	recs := runSpec(t, x, `
stacks: [rest, rest+proto]
schemas: ["v2,v1,v2", "v1,v2,v1"]
payloads: [{model: user, counts: [3]}]
loads: [{closed: {clients: 1}}]
duration: 1s
warmup: 0s
order: listed
`)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	got := map[string]evolution.Trial{} // stack path change count
	for _, rec := range recs {
		if rec.Outcome != results.OutcomeOK || rec.Topology != "chain:2" || rec.Requests == 0 {
			t.Errorf("%s: %s (%s), topology %s, %d requests", rec.Case, rec.Outcome, rec.Reason, rec.Topology, rec.Requests)
		}
		if want := len(evolution.Changes) * len(evolution.TrialCounts); len(rec.Evolution) != want {
			t.Fatalf("%s: %d trials, want %d", rec.Case, len(rec.Evolution), want)
		}
		for _, tr := range rec.Evolution {
			if tr.Path != rec.Schema {
				t.Errorf("%s: a trial over %s", rec.Case, tr.Path)
			}
			got[rec.Stack+" "+tr.Path+" "+tr.Change+" "+strconv.Itoa(tr.Count)] = tr
		}
	}
	for _, want := range []struct {
		key     string
		outcome evolution.Outcome
	}{
		{"rest+proto v2,v1,v2 field-added 3", evolution.Kept},
		{"rest v2,v1,v2 field-added 3", evolution.Dropped},
		{"rest+proto v2,v1,v2 field-added 1", evolution.Kept},
		{"rest v2,v1,v2 field-added 1", evolution.Dropped},
	} {
		if tr := got[want.key]; tr.Outcome != want.outcome || tr.Others != evolution.Kept {
			t.Errorf("%s: %s (others %s, %s), want %s", want.key, tr.Outcome, tr.Others, tr.Detail, want.outcome)
		}
	}
	for _, stack := range []string{"rest", "rest+proto"} {
		for _, n := range evolution.TrialCounts {
			tr := got[stack+" v1,v2,v1 field-removed "+strconv.Itoa(n)]
			if tr.Others != evolution.Kept {
				t.Errorf("%s: the removed field sent by v1 disturbed others: %s (%s)", stack, tr.Others, tr.Detail)
			}
		}
	}
}
