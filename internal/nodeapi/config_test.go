package nodeapi

import (
	"slices"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/cpuset"
)

// A node's configuration renders as the flags hopbench node takes, each
// once, in a fixed order; a seed of 0 is a seed, not the default.
func TestConfigRendersTheNodesFlags(t *testing.T) {
	zero := uint64(0)
	c := Config{Announce: true, Listen: "127.0.0.1:0", Admin: "127.0.0.1:0", Downstream: []string{"a:1", "b:2"}, Stack: "rest+proto",
		Seed: &zero, Schema: "v2", Options: map[string]string{"b": "2", "a": "1"}, HTTP2: true, TLSDir: "/t", MTLS: true,
		MaxConns: 9000, Network: "lan", CPUs: cpuset.Set{1, 2}, Extra: []string{"--x"}}
	want := "--announce --listen 127.0.0.1:0 --admin 127.0.0.1:0 --downstream a:1,b:2 --stack rest+proto --seed 0 --schema v2 " +
		"--option a=1 --option b=2 --http2 --tls-dir /t --mtls --max-conns 9000 --network lan --cpus 1,2 --x"
	if got := strings.Join(c.Args(), " "); got != want {
		t.Errorf("flags\n%s\nwant\n%s", got, want)
	}
	jvm := Config{Runtime: "jvm", Stack: "grpc", Seeds: "/s.bin", JVMFlags: []string{"-XX:+A", "-XX:MaxRAM=1"}, Cache: true}
	if got := jvm.Args(); !slices.Equal(got, []string{"--runtime", "jvm", "--stack", "grpc", "--cache", "--seeds", "/s.bin", "--jvm-flag=-XX:+A", "--jvm-flag=-XX:MaxRAM=1"}) {
		t.Errorf("a JVM node's flags: %q", got)
	}
	if got := (Config{Stack: "rest"}).Args(); !slices.Equal(got, []string{"--stack", "rest"}) {
		t.Errorf("no seed given renders %q, want the node's default (no --seed)", got)
	}
}
