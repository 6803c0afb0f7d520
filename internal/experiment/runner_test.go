package experiment

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// built is the binary the runner starts nodes from, built once for the
// package's tests (a link of it takes seconds; the tests ask for it about
// twenty times).
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// hopbenchBin is the binary the runner starts nodes from, built on first
// use.
func hopbenchBin(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "hopbench-bin"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "hopbench")
		out, err := exec.Command("go", "build", "-o", built.bin, "../../cmd/hopbench").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("building hopbench: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// withMarker lists live processes whose environment holds marker.
func withMarker(marker string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		if env, err := os.ReadFile(d + "/environ"); err == nil && bytes.Contains(env, []byte(marker+"\x00")) {
			var p int
			fmt.Sscanf(filepath.Base(d), "%d", &p)
			pids = append(pids, p)
		}
	}
	return pids
}

// A node that dies mid-run ends that run with a record saying so; calls
// failed in the meantime are classified; the experiment's next run runs.
func TestANodeDyingMidRunIsRecordedAndTheExperimentGoesOn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	spec, err := Parse([]byte(`
stacks: [rest, grpc]
payloads: [{model: text, counts: [10]}]
topologies: [chain:2]
loads: [{closed: {clients: 2}}]
duration: 3s
warmup: 0s
`))
	if err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("HOPBENCH_TEST_MARKER=%d", os.Getpid())
	var once sync.Once
	x := &Runner{Bin: hopbenchBin(t), Dir: t.TempDir(), Env: []string{marker}}
	x.OnSecond = func(r Run, s results.Second) {
		if r.Index == 0 {
			once.Do(func() {
				for _, pid := range withMarker(marker) {
					syscall.Kill(pid, syscall.SIGKILL) // the leaf and the entry alike
				}
			})
		}
	}
	recs, err := x.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	if recs[0].Outcome != results.OutcomeNodeDied || recs[0].Reason == "" {
		t.Errorf("first run: outcome %q (%s), want node died; %d requests, errors %v, nodes %+v", recs[0].Outcome, recs[0].Reason, recs[0].Requests, recs[0].ErrorsByClass, recs[0].Nodes)
	}
	if recs[1].Outcome != results.OutcomeOK || recs[1].Requests == 0 {
		t.Errorf("second run: %q with %d requests, want ok", recs[1].Outcome, recs[1].Requests)
	}
	if left := withMarker(marker); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}
	back, _, err := results.Read(filepath.Join(x.Dir, ResultsFile))
	if err != nil || len(back) != 2 {
		t.Fatalf("read back %d records: %v", len(back), err)
	}
}

// A capacity search against a real node records its probes as steps, its
// capacity and why it ended; its rate and latency are the capacity's
// probe's, its requests every probe's.
func TestACapacitySearchIsRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	spec, err := Parse([]byte(`
stacks: [rest]
payloads: [{model: text, counts: [10]}]
loads: [{capacity: {sla: 250ms, step: 1s, start: 50, max_rate: 200, budget: 20s}}]
warmup: 0s
`))
	if err != nil {
		t.Fatal(err)
	}
	x := &Runner{Bin: hopbenchBin(t), Dir: t.TempDir()}
	recs, err := x.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	r := recs[0]
	c := r.Capacity
	if c == nil || r.CapacityRPS != 200 || !c.LowerBound || len(r.Steps) != 3 || r.Outcome != results.OutcomeOK {
		t.Fatalf("capacity %+v (capacity_rps %v), %d steps, outcome %q (%s): want ≥ 200 from probes at 50, 100 and 200 (rates any machine holds, also under -race)", c, r.CapacityRPS, len(r.Steps), r.Outcome, r.Reason)
	}
	if r.Load != "capacity:p99<=250ms/step:1s/start:50/max_rate:200/budget:20s" || r.P99Us == 0 || r.RPS < 194 || r.RPS > 202 {
		t.Errorf("load %q, p99 %dµs at %.0f req/s: want the capacity's probe's figures", r.Load, r.P99Us, r.RPS)
	}
	var probed int64
	for _, st := range r.Steps {
		probed += st.Requests
	}
	if r.Requests != probed || len(r.Nodes) != 1 || r.Nodes[0].CPUUsPerReq <= 0 {
		t.Errorf("requests %d over probes of %d; nodes %+v", r.Requests, probed, r.Nodes)
	}
}

// A node whose /reset fails would report figures that include the
// warm-up: the run says so in its outcome instead of recording them.
func TestAFailedNodeResetFailsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	x := &Runner{Bin: hopbenchBin(t), Dir: t.TempDir()}
	x.resetNode = func(context.Context, string) error { return fmt.Errorf("POST /reset: 500 Internal Server Error") }
	recs := runSpec(t, x, restSecond)
	if len(recs) != 1 || recs[0].Outcome != results.OutcomeFailed || !strings.Contains(recs[0].Reason, "node 0: its admin /reset failed") {
		t.Fatalf("records %+v, want one failed, saying the reset failed", recs)
	}
}

// restSecond is the smallest run that starts a node: one REST client for
// one second.
const restSecond = `
stacks: [rest]
payloads: [{model: text, counts: [10]}]
loads: [{closed: {clients: 1}}]
duration: 1s
warmup: 0s
`

// runSpec reads spec and makes its runs with x, failing t on any error.
func runSpec(t *testing.T, x *Runner, spec string) []results.Record {
	t.Helper()
	s, err := Parse([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := x.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
