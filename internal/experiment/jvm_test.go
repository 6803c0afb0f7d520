package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/report"
	"github.com/hopbench/hopbench/internal/results"
)

// needJVM skips without the JVM node's build unless HOPBENCH_REQUIRE_JVM
// is set (make test sets it).
func needJVM(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts JVM nodes")
	}
	if _, err := jvm.Jar(); err != nil {
		if os.Getenv("HOPBENCH_REQUIRE_JVM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// A spec with runtimes [go, jvm] runs each case on both, a chain of two
// JVM nodes included, with no errors; its records say which runtime and
// what JVM flags, and its report sets the runtimes side by side.
func TestRuntimesRunSideBySide(t *testing.T) {
	needJVM(t)
	recs := runSpec(t, &Runner{Bin: hopbenchBin(t), Dir: t.TempDir()}, `
runtimes: [go, jvm]
stacks: [rest+json+gzip, grpc]
topologies: [chain:2]
ops: [get, echo]
payloads: [{model: payment, counts: [5]}]
loads: [{closed: {clients: 1}}]
requests: 50
warmup: 200ms
sla: 2s
`)
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	for _, r := range recs {
		if r.Outcome != results.OutcomeOK || r.Errors != 0 || r.Requests != 50 {
			t.Errorf("%s: %s (%s), %d requests, errors %v", r.Case, r.Outcome, r.Reason, r.Requests, r.ErrorsByClass)
		}
		if onJVM := strings.HasSuffix(r.Case, " jvm"); onJVM != (r.Runtime == jvm.JVM) || onJVM != strings.Contains(string(r.Config), `"jvm_flags":["-XX:+DisplayVMOutputToStderr"]`) {
			t.Errorf("%s: runtime %q, config %s", r.Case, r.Runtime, r.Config)
		}
		for _, n := range r.Nodes {
			if n.Stats == nil || n.Stats.Requests == 0 || n.Stats.Phases["decode"].Count == 0 || n.RSSBytes == 0 || n.BootMs <= 0 {
				t.Errorf("%s: node %d: %+v, stats %+v, want its figures", r.Case, n.Index, n, n.Stats)
			}
		}
		if len(r.Nodes) != 2 {
			t.Errorf("%s: %d nodes, want 2", r.Case, len(r.Nodes))
		}
	}
	rep, err := report.Build("runtimes", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Runtimes: Go and the JVM side by side") || !strings.Contains(md.String(), "| grpc |") || !strings.Contains(md.String(), "(1, 1 runs)") {
		t.Errorf("the report sets no runtimes side by side:\n%s", md.String())
	}
}

// A user's message runs on the JVM node as on the Go node, on every stack
// the JVM node serves, through a chain of two, for every operation: gets
// answered from the seeds the rig wrote, no error anywhere, and the JVM
// side's Protobuf bodies smaller than its JSON ones, from the run.
func TestAUsersMessageRunsOnTheJVM(t *testing.T) {
	needJVM(t)
	recs := runSpec(t, &Runner{Bin: hopbenchBin(t), Dir: t.TempDir()}, "runtimes: [go, jvm]\nstacks: [rest, rest+proto, grpc]\n"+
		"topologies: [chain:2]\nops: [get, echo, post]\n"+ordersPayload+"loads: [{closed: {clients: 2}}]\nrequests: 40\nwarmup: 0s\nsla: 30s\n")
	reply := map[string]int{}
	for _, r := range recs {
		if r.Outcome != results.OutcomeOK || r.Errors != 0 || r.Requests != 40 || r.Model != "shop.Order" {
			t.Errorf("%s: %s (%s), %d requests of %s, errors %v", r.Case, r.Outcome, r.Reason, r.Requests, r.Model, r.ErrorsByClass)
		}
		if r.Runtime == jvm.JVM && r.Op == "get" {
			reply[r.Stack] = r.ResponseBodyBytes
		}
	}
	if len(recs) != 18 {
		t.Fatalf("%d records, want 18 (3 stacks × 3 operations × 2 runtimes)", len(recs))
	}
	if reply["rest+proto"] == 0 || reply["rest+proto"] >= reply["rest"] {
		t.Errorf("the JVM node's get replies: Protobuf %d bytes, JSON %d; want Protobuf's smaller, measured", reply["rest+proto"], reply["rest"])
	}
}

// A JVM node's record carries its heap over the window, from its GC log:
// serving 100 000 users a get under a 400 MiB limit, the node pauses, and
// what it committed stays within the 75 % of the limit its heap may take.
// The logs go with the run.
func TestAJVMNodesHeapIsReadFromItsGCLog(t *testing.T) {
	needJVM(t)
	dir := t.TempDir()
	recs := runSpec(t, &Runner{Bin: hopbenchBin(t), Dir: dir}, `
runtimes: [jvm]
stacks: [rest, rest+proto]
ops: [get]
payloads: [{model: user, counts: [100000]}]
loads: [{closed: {clients: 1}}]
memory: 400MiB
requests: 5
warmup: 1s
sla: 60s
`)
	for _, r := range recs {
		if r.Outcome != results.OutcomeOK || len(r.Nodes) != 1 {
			t.Fatalf("%s: %s (%s), %d nodes", r.Case, r.Outcome, r.Reason, len(r.Nodes))
		}
		h := r.Nodes[0].Heap
		t.Logf("%s: heap %+v", r.Case, h)
		if h == nil || h.Pauses == 0 || h.UsedPeak < 10<<20 || h.CommittedPeak < h.UsedPeak || h.CommittedPeak > 300<<20 {
			t.Errorf("%s: heap %+v (%s): want pauses, a used peak of at least 10 MiB and a committed one within 300 MiB", r.Case, h, r.Nodes[0].HeapError)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*", "gc-*.log"))
	if len(logs) != 0 {
		t.Errorf("GC logs left after the runs: %q", logs)
	}
}
