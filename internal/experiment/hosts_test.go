package experiment

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hopbench/hopbench/internal/hosts"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// hostsUp makes three hosts with agents for the test, as hopbench hosts up
// does, in a HOPBENCH_HOME of its own.
func hostsUp(t *testing.T, bin string) *hosts.State {
	t.Helper()
	if testing.Short() {
		t.Skip("makes network namespaces and starts agents")
	}
	if c := network.Detect(); c.Missing != "" {
		t.Skipf("hosts of their own: %s", c.Missing)
	}
	t.Setenv("HOPBENCH_HOME", t.TempDir())
	st, err := hosts.Up(context.Background(), hosts.Config{N: 3, Port: hosts.DefaultPort, Bin: bin, Dir: hosts.Dir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hosts.Down(hosts.Dir()) })
	return st
}

// The must-show: hosts up 3; the generator on a and a chain:3 of
// rest and of grpc across b, c, b complete with no error; every record
// names each part's host; the load split across two generator hosts
// merges into a histogram holding both shares' requests; hosts down
// leaves no namespace, link or process. A NATS chain, its broker started
// by host c's agent, runs the same way.
func TestAChainPlacedAcrossThreeHostsRunsAndHostsDownLeavesNothing(t *testing.T) {
	bin := hopbenchBin(t)
	st := hostsUp(t, bin)
	recs := runSpec(t, &Runner{Bin: bin, Dir: t.TempDir()}, `
hosts: [{name: a}, {name: b}, {name: c}]
placement:
  - {name: one-generator, generator: a, nodes: [b, c, b], broker: c}
  - {name: two-generators, generator: [a, c], nodes: [b, c, b], broker: c}
stacks: [rest, grpc, nats]
topologies: ["chain:3"]
payloads: [{model: user, counts: [10]}]
loads: [{closed: {clients: 4}}]
duration: 1s
warmup: 300ms
`)
	if len(recs) != 6 {
		t.Fatalf("%d records, want 6", len(recs))
	}
	var pids []int
	for _, r := range recs {
		if r.Outcome != "ok" || r.Errors != 0 || r.Requests == 0 {
			t.Errorf("%s: %s (%s), %d requests, %d errors", r.Case, r.Outcome, r.Reason, r.Requests, r.Errors)
		}
		for i, n := range r.Nodes {
			if want := []string{"b", "c", "b"}[i]; n.Host != want {
				t.Errorf("%s: node %d on host %q, want %s", r.Case, i, n.Host, want)
			}
			pids = append(pids, n.PID)
		}
		two := strings.Contains(r.Case, "two-generators")
		if want := map[bool][]string{false: {"a"}, true: {"a", "c"}}[two]; !slices.Equal(r.Generators, want) {
			t.Errorf("%s: generators %v, want %v", r.Case, r.Generators, want)
		}
		brokered := r.Stack == "nats"
		checkHosts(t, r.Case, r.Hosts, two, brokered, r.Requests, r.Histogram)
		if brokered && (len(r.Brokers) != 1 || r.Brokers[0].Host != "c" || r.Brokers[0].CPUSeconds <= 0) {
			t.Errorf("%s: brokers %+v, want NATS on host c with its CPU measured", r.Case, r.Brokers)
		}
	}
	said, err := hosts.Down(hosts.Dir())
	if err != nil {
		t.Fatalf("hosts down: %v", err)
	}
	t.Log("hosts down:", said)
	checkNothingLeft(t, st, pids)
}

// checkHosts checks a record's hosts: roles as placed, and a split load's
// merged histogram holding exactly the shares' requests.
func checkHosts(t *testing.T, name string, hs []results.Host, two, brokered bool, requests int64, histogram string) {
	t.Helper()
	roles := map[string][]string{}
	var sent int64
	for _, h := range hs {
		roles[h.Name] = h.Roles
		sent += h.GeneratorRequests
		if h.CPUSeconds <= 0 || h.NetTxBytes <= 0 {
			t.Errorf("%s: host %s used %.2fs CPU and sent %d bytes", name, h.Name, h.CPUSeconds, h.NetTxBytes)
		}
	}
	want := map[string][]string{"a": {"generator"}, "b": {"node 0", "node 2"}, "c": {"node 1"}}
	if two {
		want["c"] = []string{"generator", "node 1"}
	}
	if brokered {
		want["c"] = append(want["c"], "broker")
	}
	for host, r := range want {
		if !slices.Equal(roles[host], r) {
			t.Errorf("%s: host %s has roles %v, want %v", name, host, roles[host], r)
		}
	}
	h, err := stats.Decode(histogram)
	if err != nil {
		t.Fatal(err)
	}
	if sent != requests || h.TotalCount() != requests {
		t.Errorf("%s: the generator hosts sent %d requests, the record counts %d and its histogram %d", name, sent, requests, h.TotalCount())
	}
}

// checkNothingLeft checks that no namespace, link or process of the hosts
// is left.
func checkNothingLeft(t *testing.T, st *hosts.State, nodePIDs []int) {
	t.Helper()
	out, _ := exec.Command("ip", "netns", "list").Output()
	links, _ := exec.Command("ip", "-o", "link", "show").Output()
	if strings.Contains(string(out)+string(links), network.HostsID+"_") {
		t.Errorf("left behind:\n%s\n%s", out, links)
	}
	for _, h := range st.Hosts {
		nodePIDs = append(nodePIDs, h.PID)
	}
	for _, pid := range nodePIDs {
		if cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && strings.Contains(string(cmdline), "hopbench") {
			if syscall.Kill(pid, 0) == nil {
				t.Errorf("process %d (%s) outlived hosts down", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
			}
		}
	}
}

// JVM nodes run on hosts too: the host's own hopbench node --runtime jvm
// starts each, and a chain of them across two hosts serves with no error
// (its SLA far off: a reply past it counts as an error, and on a busy
// machine a JVM's first calls are slow, not wrong).
func TestJVMNodesRunOnHosts(t *testing.T) {
	if _, err := jvm.Jar(); err != nil {
		if os.Getenv("HOPBENCH_REQUIRE_JVM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	bin := hopbenchBin(t)
	hostsUp(t, bin)
	recs := runSpec(t, &Runner{Bin: bin, Dir: t.TempDir()}, `
hosts: [{name: a}, {name: b}, {name: c}]
placement: {generator: a, nodes: [b, c]}
runtimes: [jvm]
stacks: [grpc, rest]
topologies: ["chain:2"]
ops: [get]
payloads: [{model: user, counts: [10]}]
loads: [{closed: {clients: 2}}]
duration: 1s
warmup: 500ms
sla: 30s
`)
	for _, r := range recs {
		if r.Outcome != "ok" || r.Errors != 0 || r.Requests == 0 || r.Runtime != jvm.JVM {
			t.Errorf("%s: %s (%s), %d requests, %d errors %v, runtime %q", r.Case, r.Outcome, r.Reason, r.Requests, r.Errors, r.ErrorsByClass, r.Runtime)
		}
		for i, n := range r.Nodes {
			if want := []string{"b", "c"}[i]; n.Host != want || n.Stats == nil {
				t.Errorf("%s: node %d on %q with stats %v, want on %s with its contract's stats", r.Case, i, n.Host, n.Stats, want)
			}
		}
	}
}

// Your own message runs on hosts of their own: the run ships its .proto
// files and fill to each host's agent, which unpacks them for the session
// and hands its nodes (Go and JVM) and load shares its own copy; a chain
// across two hosts serves every operation with no error (its SLA far off,
// as in the test above).
func TestAUsersMessageRunsOnHosts(t *testing.T) {
	bin := hopbenchBin(t)
	hostsUp(t, bin)
	runtimes := "[go]"
	if _, err := jvm.Jar(); err == nil {
		runtimes = "[go, jvm]"
	} else if os.Getenv("HOPBENCH_REQUIRE_JVM") != "" {
		t.Fatal(err)
	}
	recs := runSpec(t, &Runner{Bin: bin, Dir: t.TempDir()}, "hosts: [{name: a}, {name: b}, {name: c}]\nplacement: {generator: a, nodes: [b, c]}\n"+
		"runtimes: "+runtimes+"\nstacks: [rest+proto, grpc]\ntopologies: [\"chain:2\"]\nops: [get, echo]\n"+ordersPayload+
		"loads: [{closed: {clients: 2}}]\nduration: 1s\nwarmup: 300ms\nsla: 30s\n")
	for _, r := range recs {
		if r.Outcome != "ok" || r.Errors != 0 || r.Requests == 0 || r.Model != "shop.Order" {
			t.Errorf("%s: %s (%s), %d requests of %s, %d errors %v", r.Case, r.Outcome, r.Reason, r.Requests, r.Model, r.Errors, r.ErrorsByClass)
		}
		for i, n := range r.Nodes {
			if want := []string{"b", "c"}[i]; n.Host != want {
				t.Errorf("%s: node %d on %q, want on %s", r.Case, i, n.Host, want)
			}
		}
	}
	if want := 4*strings.Count(runtimes, ",") + 4; len(recs) != want {
		t.Errorf("%d records, want %d", len(recs), want)
	}
}
