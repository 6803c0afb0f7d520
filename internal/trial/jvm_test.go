package trial

import (
	"bytes"
	"os"
	"testing"

	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/transport"
)

// Parts may set their own generator seed: each JVM node gets the seeds
// file of its run's seed, so its get replies are the Go node's for it.
func TestEachJVMRunGetsTheSeedsOfItsOwnSeed(t *testing.T) {
	if _, err := jvm.Jar(); err != nil {
		if os.Getenv("HOPBENCH_REQUIRE_JVM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	a := Case{JVM: &JVM{}, Op: transport.OpGet, Model: "text", Count: 10, Seed: 1}
	b := a
	b.Seed = 2
	s, err := jvmNodes([]Case{a, b}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	fa, fb := s.seeds[a.Seed], s.seeds[b.Seed]
	ba, errA := os.ReadFile(fa)
	bb, errB := os.ReadFile(fb)
	if fa == fb || errA != nil || errB != nil || bytes.Equal(ba, bb) {
		t.Errorf("seeds %s and %s (%v, %v): want a file of its own for each seed, with different data", fa, fb, errA, errB)
	}
}
