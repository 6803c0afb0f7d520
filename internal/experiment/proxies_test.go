package experiment

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/proxy"
	"github.com/hopbench/hopbench/internal/proxy/proxytest"
	"github.com/hopbench/hopbench/internal/results"
)

// A proxy's settings are checked by field, and what a stack or switch of
// the spec cannot take with them is refused by name, saying what to do.
func TestProxySettingsAreCheckedByField(t *testing.T) {
	base := "payloads: [{model: int, counts: [1]}]\nloads: [{closed: {clients: 1}}]\ntopologies: [\"chain:3\"]\n"
	for _, c := range []struct{ spec, want string }{
		{"stacks: [rest]\nproxy: {kind: envoy, mode: l7}", `proxy.kind: proxy kind "envoy": unknown (known: haproxy, nginx; envoy and linkerd2-proxy have no Debian package here)`},
		{"stacks: [rest]\nproxy: {kind: haproxy, mode: l5}", `proxy.mode: "l5": want l4 (TCP relayed) or l7 (HTTP parsed)`},
		{"stacks: [rest]\nproxy: {kind: haproxy, mode: l4, sidecars: 3}", "proxy.sidecars: 3: want 1"},
		{"stacks: [rest]\nproxy: {kind: haproxy, mode: l4, mtls: true}", "proxy.mtls: mutual TLS is between an outbound and an inbound sidecar: set sidecars: 2"},
		{"stacks: [rest]\nproxy: {kind: haproxy, mode: l4, hops: [3]}", "proxy.hops[0]: 3: chain:3 has no node 3"},
		{"stacks: [rest]\nproxy: {kind: haproxy, mode: l4, hops: [0]}", "for the generator's call set client: true"},
		{"stacks: [rest]\nproxy: {kind: haproxy, mode: l4, port: 1}", `proxy: unknown field "port"`},
		{"stacks: [rest]\ntls: true\nproxy: {kind: nginx, mode: l7}", "an l7 proxy would have to end the services' own TLS"},
		{"stacks: [kafka]\ntls: true\nproxy: {kind: haproxy, mode: l4}", `stacks[0]: "kafka" with l4 proxies: its broker's listener for a proxy is plain`},
		{"stacks: [rest-h3]\nproxy: {kind: haproxy, mode: l4}", "HTTP/3 is QUIC over UDP"},
		{"stacks: [amqp]\nproxy: {kind: haproxy, mode: l7}", `"amqp" with l7 proxies: its calls go through a broker`},
		{"stacks: [ws]\nproxy: {kind: haproxy, mode: l7}", `"ws" with l7 proxies: an l7 proxy carries HTTP requests`},
		{"stacks: [rest]\nnetwork_mode: kernel\nproxy: {kind: haproxy, mode: l4}", "not with network_mode kernel"},
	} {
		_, err := Parse([]byte(base + c.spec))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.spec, err, c.want)
		}
	}
	s, err := Parse([]byte(base + "stacks: [rest, grpc, amqp, nats, kafka]\nproxy: [none, {kind: haproxy, mode: l4, sidecars: 2, mtls: true}]"))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 10 {
		t.Fatalf("%d runs, want 10", len(runs))
	}
	names := map[string]bool{}
	for _, r := range runs {
		names[r.Case()] = true
	}
	if !names["rest chain:3 echo int×1 closed:1 proxy:haproxy/l4/x2/mtls"] || !names["rest chain:3 echo int×1 closed:1"] {
		t.Errorf("cases %v: want rest with and without proxy:haproxy/l4/x2/mtls", names)
	}
}

// Broker stacks take L4 proxies in front of their broker: every node and
// the generator call it through them, and lose no call. Each call's
// body crosses the proxies (Kafka's clients, which call the addresses
// their broker advertises, are sent to them too).
func TestBrokerStacksThroughProxiesInFrontOfTheirBroker(t *testing.T) {
	proxytest.Need(t)
	recs := runSpec(t, brokerRunner(t), `
stacks: [amqp, nats, redis, mqtt, kafka]
payloads: [{model: text, counts: [10]}]
topologies: [chain:2]
loads: [{closed: {clients: 2}}]
duration: 1s
warmup: 500ms
proxy: [{kind: haproxy, mode: l4, sidecars: 2, mtls: true}, {kind: nginx, mode: l4}]
`)
	if len(recs) != 10 {
		t.Fatalf("%d records, want 10", len(recs))
	}
	for _, r := range recs {
		want := 2
		if strings.Contains(r.Options, "nginx") {
			want = 1
		}
		if r.Outcome != results.OutcomeOK || r.Errors != 0 || len(r.Proxies) != want {
			t.Errorf("%s: %s (%s), %d errors, %d proxies (want %d)", r.Case, r.Outcome, r.Reason, r.Errors, len(r.Proxies), want)
		}
		for _, p := range r.Proxies {
			if !strings.Contains(p.Role, "broker") || p.CPUSeconds <= 0 {
				t.Errorf("%s: proxy %+v: want one in front of the broker, having worked", r.Case, p)
			}
			if p.Legs == nil || p.Legs.Sent < float64(r.RequestBodyBytes) {
				t.Errorf("%s: proxy %s carried %+v bytes a call, less than one %d-byte body: calls bypassed it", r.Case, p.Role, p.Legs, r.RequestBodyBytes)
			}
		}
	}
}

// A proxy killed mid-run ends the run as a proxy that died, naming it.
func TestAProxyKilledMidRunIsRecordedAsDied(t *testing.T) {
	proxytest.Need(t)
	x := &Runner{Bin: hopbenchBin(t), Dir: t.TempDir()}
	go func() {
		// Into the run's window, once its proxy is up.
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if pids := proxy.PIDsUnder(x.Dir); len(pids) > 0 {
				time.Sleep(time.Second)
				syscall.Kill(pids[0], syscall.SIGKILL)
				return
			}
		}
	}()
	recs := runSpec(t, x, `
stacks: [rest]
payloads: [{model: text, counts: [10]}]
topologies: [chain:2]
loads: [{closed: {clients: 1}}]
duration: 10s
warmup: 0s
proxy: {kind: haproxy, mode: l4}
`)
	if len(recs) != 1 || recs[0].Outcome != results.OutcomeProxyDied || !strings.Contains(recs[0].Reason, "proxy hop 0→1 (haproxy") {
		t.Fatalf("records %+v: want one, its proxy died", recs)
	}
	if recs[0].Proxies[0].Exit == "" {
		t.Errorf("the proxy's record says nothing of its exit: %+v", recs[0].Proxies[0])
	}
}
