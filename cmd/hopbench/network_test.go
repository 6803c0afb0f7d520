package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/hopbench/hopbench/internal/network"
)

// runSpec runs spec and returns the record of each stack and topology,
// every one of which must have ended ok.
func runSpec(t *testing.T, spec string) map[string]map[string]any {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "results")
	if stdout, code := hopbench(t, "run", writeSpec(t, spec), "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	out := map[string]map[string]any{}
	for _, r := range readRecords(t, dir) {
		if r["outcome"] != "ok" {
			t.Fatalf("%v: outcome %v (%v)", r["case"], r["outcome"], r["reason"])
		}
		out[fmt.Sprintf("%v %v", r["stack"], r["topology"])] = r
	}
	return out
}

// A 5 ms one-way delay is paid on each direction of every hop, once: a
// direct call pays two, a chain of three six, a call through a broker four
// (caller to broker, broker to service, and back). Each bound's upper end
// is below what shaping both ends of a connection would give (twice).
func TestADelayIsPaidOnEachDirectionOfEveryHop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a network experiment with RabbitMQ")
	}
	recs := runSpec(t, `
name: delay
stacks: [rest, amqp]
payloads: [{model: text, counts: [100]}]
topologies: [direct, chain:3]
loads: [{closed: {clients: 1}}]
network: {delay: 5ms}
duration: 1s
warmup: 300ms
`)
	for c, want := range map[string][2]float64{
		"rest direct":  {10, 17},
		"rest chain:3": {30, 45},
		"amqp direct":  {20, 35},
		"amqp chain:3": {60, 100},
	} {
		r := recs[c]
		if r == nil {
			t.Fatalf("no record of %s", c)
		}
		p50 := r["p50_us"].(float64) / 1000
		t.Logf("%s: p50 %.2f ms", c, p50)
		if p50 < want[0] || p50 >= want[1] {
			t.Errorf("%s: p50 %.2f ms, want %v to %v ms", c, p50, want[0], want[1])
		}
		net, _ := r["network"].(map[string]any)
		if net == nil || net["profile"] != "delay=5ms" || net["rtt_us"].(float64) < 10_000 {
			t.Errorf("%s: network recorded as %v, want the profile and a measured round trip of 10 ms or more", c, r["network"])
		}
		if r["options"] != "net:delay=5ms" {
			t.Errorf("%s: options %q, want the network named", c, r["options"])
		}
	}
}

// At 8 Mbit/s each way a 100 kB request and its 100 kB reply take 200 ms
// at least, and the throughput measured before the run is within 15 % of
// 8 Mbit/s.
func TestABandwidthPacesEachDirection(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a network experiment")
	}
	r := runSpec(t, `
name: bandwidth
stacks: [rest]
payloads: [{model: text, counts: [100000]}]
loads: [{closed: {clients: 1}}]
network: {bandwidth: 8mbit}
duration: 2s
warmup: 300ms
`)["rest direct"]
	p50 := r["p50_us"].(float64) / 1000
	net := r["network"].(map[string]any)
	t.Logf("p50 %.1f ms, request body %v B; measured %v", p50, r["request_body_bytes"], net)
	if p50 < 200 {
		t.Errorf("p50 %.1f ms for 100 kB each way at 8 Mbit/s, want at least 200 ms", p50)
	}
	if mbit := net["throughput_mbit"].(float64); mbit < 8*0.85 || mbit > 8*1.15 {
		t.Errorf("measured %.2f Mbit/s, want within 15%% of 8", mbit)
	}
}

// In kernel mode the generator and each node run on hosts of their own
// (network namespaces) and the broker beside hopbench, the links shaped
// with tbf: bandwidth alone works here, delay is refused where the kernel
// has no netem, and no namespace outlives the run.
func TestKernelModeShapesHostsOfTheirOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("makes network namespaces")
	}
	caps := network.Detect()
	if caps.Missing != "" {
		t.Skip(caps.Missing)
	}
	before := namespaces(t)
	recs := runSpec(t, `
name: kernel
stacks: [rest, amqp]
payloads: [{model: text, counts: [100000]}]
topologies: [direct, chain:2]
loads: [{closed: {clients: 1}}]
network: {bandwidth: 8mbit}
network_mode: kernel
duration: 2s
warmup: 300ms
sla: 10s
`)
	// The SLA is far off: amqp chain:2's p50 is about 800 ms by design
	// (below), a busy machine's tail passed the default 1 s, and what is
	// tested is the shaping, not how fast.
	// A broker call crosses four legs: caller to broker, broker to service
	// and back, each 100 kB at 8 Mbit/s.
	for c, least := range map[string]float64{"rest direct": 200, "rest chain:2": 400, "amqp direct": 400, "amqp chain:2": 800} {
		r := recs[c]
		net, _ := r["network"].(map[string]any)
		p50 := r["p50_us"].(float64) / 1000
		t.Logf("%s: p50 %.1f ms; %v", c, p50, net)
		if p50 < least || net["mechanism"] != "kernel" || r["options"] != "net:bandwidth=8mbit@kernel" {
			t.Errorf("%s: p50 %.1f ms (want ≥ %v), network %v, options %q", c, p50, least, net, r["options"])
		}
	}
	// HTTP/3's datagrams cross the same shaped links: QUIC's UDP socket is
	// opened in the generator's namespace, as its TCP connections are.
	for c, r := range runSpec(t, `
name: kernel-h3
stacks: [rest-h3]
payloads: [{model: text, counts: [100000]}]
topologies: [direct, chain:2]
loads: [{closed: {clients: 1}}]
network: {bandwidth: 8mbit}
network_mode: kernel
tls: true
duration: 2s
warmup: 300ms
`) {
		least, ok := map[string]float64{"rest-h3 direct": 200, "rest-h3 chain:2": 400}[c]
		if !ok {
			t.Errorf("a run of an unexpected case %q", c)
		}
		if p50 := r["p50_us"].(float64) / 1000; p50 < least || r["outcome"] != "ok" {
			t.Errorf("%s: %v, p50 %.1f ms, want ≥ %v ms", c, r["outcome"], p50, least)
		}
	}
	// TLS reaches hosts of their own too: the experiment's certificates
	// name the lab's addresses, and the broker's TLS listener is on it.
	for c, r := range runSpec(t, `
name: kernel-tls
stacks: [rest, amqp]
payloads: [{model: text, counts: [100]}]
loads: [{closed: {clients: 1}}]
network: {bandwidth: 100mbit}
network_mode: kernel
tls: true
mtls: true
duration: 1s
warmup: 200ms
`) {
		if enc, _ := r["encrypted"].(map[string]any); enc == nil || enc["mutual"] != true {
			t.Errorf("%s: encrypted %v, want every leg under mutual TLS", c, r["encrypted"])
		}
	}
	if after := namespaces(t); !slices.Equal(after, before) {
		t.Errorf("namespaces before the run %v, after %v", before, after)
	}
	refused := writeSpec(t, "stacks: [rest]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\nnetwork: {delay: 5ms}\nnetwork_mode: kernel\n")
	if caps.Netem {
		return
	}
	stderr, code := hopbenchStderr(t, "run", refused, "--out", filepath.Join(t.TempDir(), "refused"))
	if code == 0 || !strings.Contains(stderr, "netem") || !strings.Contains(stderr, "in-process") {
		t.Errorf("delay in kernel mode without netem: exit %d: %s", code, stderr)
	}
}

func namespaces(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			ns = append(ns, f[0])
		}
	}
	slices.Sort(ns)
	return ns
}

// hopbench load --network shapes the load's connections and says what the
// network gave, measured first; a chain's nodes take --network too.
func TestLoadAcrossAnEmulatedNetwork(t *testing.T) {
	leaf := startNode(t, "--stack", "rest")
	entry := startNode(t, "--stack", "rest", "--downstream", leaf, "--network", "delay=2ms")
	out, code := hopbench(t, "load", "--stack", "rest", "--target", entry, "--clients", "1", "--duration", "500ms", "--network", "delay=2ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if !regexp.MustCompile(`(?m)^network +delay=2ms \(in-process\): round trip [0-9.]+ ms`).MatchString(out) {
		t.Errorf("no measured network in:\n%s", out)
	}
	out, code = hopbench(t, "load", "--stack", "rest", "--target", entry, "--clients", "1", "--duration", "500ms", "--network", "delay=2ms", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var got struct {
		P50Us   float64 `json:"p50_us"`
		Network struct {
			RTTUs float64 `json:"rtt_us"`
		} `json:"network"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.P50Us < 8000 || got.P50Us > 16000 || got.Network.RTTUs < 4000 {
		t.Errorf("p50 %.0fµs over two hops of 2 ms each way (want 8 ms, not twice that), round trip measured %.0fµs", got.P50Us, got.Network.RTTUs)
	}
	if _, code := hopbench(t, "load", "--stack", "rest", "--target", entry, "--clients", "1", "--network", "dsl"); code != 2 {
		t.Errorf("an unknown network: exit %d, want 2 (usage)", code)
	}
}

// A kernel-mode experiment stopped by Ctrl-C removes its namespaces; one
// killed outright leaves them to the next kernel-mode experiment, which
// removes them before it starts.
func TestKernelModeCleansUpAfterAnInterruptAndAKill(t *testing.T) {
	if testing.Short() {
		t.Skip("makes network namespaces")
	}
	if caps := network.Detect(); caps.Missing != "" {
		t.Skip(caps.Missing)
	}
	before := namespaces(t)
	spec := threeRuns + "network: {bandwidth: 100mbit}\nnetwork_mode: kernel\n"
	cmd, _ := startRun(t, spec)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if after := namespaces(t); !slices.Equal(after, before) {
		t.Errorf("after an interrupt: namespaces %v, before %v", after, before)
	}
	killed, _ := startRun(t, spec)
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	if after := namespaces(t); len(after) <= len(before) {
		t.Fatalf("a killed run left no namespaces (%v): this test cannot see them cleaned", after)
	}
	runSpec(t, spec)
	if after := namespaces(t); !slices.Equal(after, before) {
		t.Errorf("after the next kernel-mode run: namespaces %v, before %v", after, before)
	}
}
