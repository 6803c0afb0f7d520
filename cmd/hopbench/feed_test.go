package main_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all"
)

// A spec of feeds (feed:N) runs on every stack that carries them, direct
// and through a chain, plain and with TLS: no call fails, and each record
// has the time to the first message (no later than the last's) and N
// messages a reply.
func TestFeedsRunDirectAndThroughAChainOnEveryFeedingStack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a node per stack and topology")
	}
	stacks := feedingStacks()
	plain := without(stacks, "rest-h3") // QUIC needs TLS
	spec := writeSpec(t, `
name: feeds
ops: ["feed:20"]
payloads: [{model: user, counts: [3]}]
topologies: [direct, chain:3]
loads: [{closed: {clients: 8}}]
duration: 400ms
warmup: 100ms
parts:
  - {name: plain, stacks: [`+strings.Join(plain, ", ")+`]}
  - {name: tls, stacks: [`+strings.Join(stacks, ", ")+`], tls: true}
`)
	out := filepath.Join(t.TempDir(), "results")
	stdout, code := hopbench(t, "run", spec, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	recs := readRecords(t, out)
	if want := 2 * (len(plain) + len(stacks)); len(recs) != want {
		t.Fatalf("%d records, want %d", len(recs), want)
	}
	for _, r := range recs {
		first, _ := r["first_message"].(map[string]any)
		rps, perS := r["rps"].(float64), r["messages_per_s"].(float64)
		switch {
		case r["outcome"] != "ok" || r["errors"].(float64) != 0:
			t.Errorf("%s: outcome %v, %v errors", r["case"], r["outcome"], r["errors"])
		case first == nil || first["p50_us"].(float64) > r["p50_us"].(float64) || r["first_message_histogram"] == nil:
			t.Errorf("%s: first message %v against a p50 of %v µs, want one no later", r["case"], first, r["p50_us"])
		case math.Abs(perS-20*rps) > 0.02*20*rps:
			t.Errorf("%s: %.0f messages/s at %.0f replies/s, want 20 a reply", r["case"], perS, rps)
		}
	}
}

// feedingStacks are the stacks that carry feeds, with proto bodies where
// a stack takes a codec.
func feedingStacks() []string {
	var out []string
	for _, n := range transport.FeedingNames() {
		switch n {
		case "rest": // JSON as server-sent events, Protobuf framed
			out = append(out, n, n+"+proto")
		case "ws":
			out = append(out, n+"+proto")
		default:
			out = append(out, n)
		}
	}
	return out
}

func without(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}
