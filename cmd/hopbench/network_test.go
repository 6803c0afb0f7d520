package main_test

import (
	"fmt"
	"path/filepath"
	"testing"
)

// byCase finds the record of each stack and topology.
func byCase(t *testing.T, recs []map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, r := range recs {
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
	spec := writeSpec(t, `
name: delay
stacks: [rest, amqp]
payloads: [{model: text, counts: [100]}]
topologies: [direct, chain:3]
loads: [{closed: {clients: 1}}]
network: {delay: 5ms}
duration: 1s
warmup: 300ms
`)
	out := filepath.Join(t.TempDir(), "results")
	if stdout, code := hopbench(t, "run", spec, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	recs := byCase(t, readRecords(t, out))
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
	spec := writeSpec(t, `
name: bandwidth
stacks: [rest]
payloads: [{model: text, counts: [100000]}]
loads: [{closed: {clients: 1}}]
network: {bandwidth: 8mbit}
duration: 2s
warmup: 300ms
`)
	out := filepath.Join(t.TempDir(), "results")
	if stdout, code := hopbench(t, "run", spec, "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	r := byCase(t, readRecords(t, out))["rest direct"]
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
