package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/proxy"
	"github.com/hopbench/hopbench/internal/proxy/proxytest"
)

// A chain:3 of rest through HAProxy at L7 with two sidecars a hop and
// mutual TLS between them, and of grpc through nginx at L7 and HAProxy at
// L4 so: every call answered, and each record lists its four proxies,
// each with its CPU, memory and the bytes on its legs.
func TestAChainThroughSidecarsWithMutualTLSLosesNoCall(t *testing.T) {
	proxytest.Need(t)
	spec := writeSpec(t, `
stacks: [rest, grpc]
topologies: ["chain:3"]
payloads: [{model: payment, counts: [5]}]
loads: [{closed: {clients: 2}}]
duration: 1s
warmup: 200ms
proxy:
  - {kind: haproxy, mode: l7, sidecars: 2, mtls: true}
  - {kind: nginx, mode: l7, sidecars: 2, mtls: true}
  - {kind: haproxy, mode: l4, sidecars: 2, mtls: true}
`)
	out := t.TempDir()
	if stdout, code := hopbench(t, "run", spec, "--out", out, "--no-calibrate"); code != 0 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "proxies")); !os.IsNotExist(err) {
		t.Errorf("the proxies' files outlived runs whose proxies all ended well (%v)", err)
	}
	recs := readRecords(t, out)
	if len(recs) != 6 {
		t.Fatalf("%d records, want 6", len(recs))
	}
	for _, r := range recs {
		if r["outcome"] != "ok" || r["errors"].(float64) != 0 {
			t.Errorf("%s: %v, %v errors (%v)", r["case"], r["outcome"], r["errors"], r["reason"])
		}
		proxies, _ := r["proxies"].([]any)
		if len(proxies) != 4 {
			t.Errorf("%s: %d proxies in the record, want 4 (2 hops × 2 sidecars)", r["case"], len(proxies))
		}
		for _, p := range proxies {
			p := p.(map[string]any)
			legs, _ := p["legs_bytes_per_req"].(map[string]any)
			if p["cpu_seconds"].(float64) <= 0 || p["rss_bytes"].(float64) <= 0 || p["pid"].(float64) <= 0 || legs == nil || legs["sent"].(float64) <= 0 {
				t.Errorf("%s: proxy %v has no CPU, RSS, pid or bytes on its legs: %v", r["case"], p["role"], p)
			}
		}
	}
}

// hopbench run killed with SIGKILL mid-run leaves none of its proxies
// behind (and, while it runs, an inbound sidecar refuses a client that
// presents no certificate): each is one process (nginx without a master, HAProxy -db) that
// the kernel kills with its parent.
func TestAKilledRunLeavesNoProxy(t *testing.T) {
	proxytest.Need(t)
	for _, kind := range []string{"haproxy", "nginx"} {
		t.Run(kind, func(t *testing.T) {
			spec := writeSpec(t, `
stacks: [rest]
topologies: ["chain:3"]
payloads: [{model: text, counts: [10]}]
loads: [{closed: {clients: 1}}]
duration: 30s
warmup: 0s
proxy: {kind: `+kind+`, mode: l7, sidecars: 2, mtls: true, client: true}
`)
			out := filepath.Join(t.TempDir(), "results")
			cmd := startLoading(t, spec, out)
			deadline := time.Now().Add(20 * time.Second)
			for len(proxy.PIDsUnder(out)) < 6 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if n := len(proxy.PIDsUnder(out)); n != 6 {
				t.Fatalf("%d proxies of the run found, want 6 (3 hops × 2 sidecars)", n)
			}
			refusesCertless(t, out)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			deadline = time.Now().Add(5 * time.Second)
			for len(proxy.PIDsUnder(out)) > 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if left := proxy.PIDsUnder(out); len(left) > 0 {
				t.Fatalf("proxies outlived the killed run: %v", left)
			}
		})
	}
}

// refusesCertless checks that the running inbound sidecar of hop 0→1,
// under the run's directory out, refuses a client without a
// certificate that trusts the run's CA.
func refusesCertless(t *testing.T, out string) {
	t.Helper()
	confs, _ := filepath.Glob(filepath.Join(out, "proxies", "run0", "hop-0-1-inbound", "*.conf"))
	if len(confs) != 1 {
		t.Fatalf("the inbound sidecar's configuration: found %v", confs)
	}
	conf, err := os.ReadFile(confs[0])
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?:bind|listen) (127\.0\.0\.1:\d+)`).FindSubmatch(conf)
	b, err := certs.Load(filepath.Join(out, "tls"))
	if m == nil || err != nil {
		t.Fatalf("no listener in %s, or no certificates (%v)", confs[0], err)
	}
	t.Logf("a client without a certificate: %q", proxytest.RefusesCertless(t, string(m[1]), b.Client(false)))
}
