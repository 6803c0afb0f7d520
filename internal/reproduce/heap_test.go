package reproduce

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/reference"
)

// withHeap is r with two nodes' heaps, in MiB: the figure is the larger.
func withHeap(r results.Record, used, committed int64) results.Record {
	r.Nodes = []results.Node{{Index: 0, Heap: &results.Heap{UsedPeak: used << 19, CommittedPeak: committed << 19, Pauses: 3}},
		{Index: 1, Heap: &results.Heap{UsedPeak: used << 20, CommittedPeak: committed << 20, Pauses: 9}}}
	return r
}

// The heap measures read the runs the limit killed as well, as their heap
// up to the kill: JSON's five killed runs against Protobuf's five
// completed ones decide both claims; a run without a heap (Go's) is
// named, not read as 0.
func TestTheHeapMeasuresReadKilledRunsUpToTheKill(t *testing.T) {
	var recs []results.Record
	for i := range int64(5) {
		recs = append(recs, withHeap(killed("rest", 1, 0, false), 150+i, 290))
		recs = append(recs, withHeap(rec("flat", "rest+proto", 3, "", results.OutcomeOK, 1000, 10), 200+i, 240+i))
	}
	recs = append(recs, rec("flat", "grpc", 3, "", results.OutcomeOK, 1000, 10))
	sel := func(stack string) map[string]string { return map[string]string{"part": "flat", "stack": stack} }
	rows := Check(study(
		directionOnly(finding("more-used", MeasureHeapUsed, "greater than 1", sel("rest+proto"), sel("rest"))),
		directionOnly(finding("less-committed", MeasureHeapCommitted, "less than 1", sel("rest+proto"), sel("rest"))),
		directionOnly(finding("go", MeasureHeapUsed, "less than 1", sel("grpc"), sel("rest"))),
	), Measured{Records: recs})
	used, committed, goRow := rows[0], rows[1], rows[2]
	if used.Verdict != Holds || used.Num.V != 202 || used.Den.V != 152 || len(used.Den.Runs) != 5 {
		t.Errorf("used: %s, %+v against %+v (%s)", used.Verdict, used.Num, used.Den, used.Why)
	}
	if committed.Verdict != Holds || committed.Den.V != 290 || committed.Num.V != 242 {
		t.Errorf("committed: %s, %+v against %+v (%s)", committed.Verdict, committed.Num, committed.Den, committed.Why)
	}
	if goRow.Verdict == Holds || !strings.Contains(goRow.Why, "no heap recorded") {
		t.Errorf("a run without a heap: %s (%s), want it named", goRow.Verdict, goRow.Why)
	}
}

// A claim read on the web says, beside its published ratio, what of its
// source was read.
func TestAClaimFromASourceSaysWhatWasRead(t *testing.T) {
	f := finding("web", "p50", "less than 1", map[string]string{"stack": "a"}, map[string]string{"stack": "b"})
	f.Ratio, f.Stated = [2]string{}, &reference.Stated{Source: "z", Low: 0.5, High: 1, Quote: "q", Where: "Abstract"}
	s := &reference.Study{Study: "s", Sources: []reference.Source{{ID: "z", URL: "https://example.org", Read: "the\n abstract"}}, Findings: []reference.Finding{f}}
	if row := Check(s, Measured{})[0]; !strings.Contains(row.Paper, "×0.5") || !strings.HasSuffix(row.Paper, "(read from the abstract)") {
		t.Errorf("paper %q: want the ratio and what was read", row.Paper)
	}
}
