package report

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// The runtimes table shows a JVM case's heap peaks from its GC log, used
// and committed (the median over its runs, the largest node of each), and
// a dash for a case whose records have none.
func TestTheRuntimesTableShowsTheJVMsHeapPeaks(t *testing.T) {
	var recs []results.Record
	for i, runtime := range []string{"", "jvm", "", "jvm"} {
		r := results.Record{Stack: "rest", Topology: "chain:2", Op: "get", Model: "user", Count: 5, Load: "closed:1", Runtime: runtime,
			Outcome: results.OutcomeOK}
		r.Requests, r.P50Us = 10, int64(1000+100*i)
		r.Case = "rest chain:2 get user×5 closed:1"
		if runtime != "" {
			r.Case, r.Options = r.Case+" jvm", "jvm"
			used := int64(100+i) << 20
			r.Nodes = []results.Node{{Heap: &results.Heap{UsedPeak: used, CommittedPeak: 256 << 20, Pauses: 3}}, {Heap: &results.Heap{UsedPeak: used / 2, CommittedPeak: 64 << 20, Pauses: 1}}}
		}
		recs = append(recs, r)
	}
	rep, err := Build("heap", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "JVM heap MiB used / committed") || !strings.Contains(md.String(), "| 102.0 / 256.0 |") {
		t.Errorf("the runtimes table shows no heap peaks of 102.0 / 256.0 MiB:\n%s", md.String())
	}
}
