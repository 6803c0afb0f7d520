package trial

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/transport"
)

// tempJVMEntries lists the entries of the system's temp folder that look
// like hopbench's JVM seeds.
func tempJVMEntries(t *testing.T) []string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(os.TempDir(), "hopbench-*jvm*"))
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// A rig with JVM nodes keeps their seeds under the results directory, not
// in the system's temp folder, and Close removes them, also when the
// experiment was interrupted (its context cancelled, as SIGINT and SIGTERM
// do): the runner closes the rig then too.
func TestTheJVMSeedsLiveUnderTheResultsAndGoAtClose(t *testing.T) {
	needJar(t)
	// A temp folder of the test's own, so that nobody else's files count.
	t.Setenv("TMPDIR", t.TempDir())
	cases := []Case{
		{JVM: &JVM{}, Op: transport.OpGet, Model: "text", Count: 10, Seed: 1},
		{JVM: &JVM{}, Op: transport.OpGet, Model: "user", Count: 5, Seed: 2},
	}
	for _, cancelled := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "results")
		ctx, cancel := context.WithCancel(context.Background())
		x, err := NewRig(ctx, RigConfig{Dir: dir}, cases)
		if err != nil {
			t.Fatal(err)
		}
		for _, seed := range []uint64{1, 2} {
			if f := x.jvm.seeds[seed]; !isUnder(f, dir) || !exists(f) {
				t.Errorf("seeds of seed %d: %s, want a file under the results directory %s", seed, f, dir)
			}
		}
		if found := tempJVMEntries(t); len(found) > 0 {
			t.Errorf("seeds in the system's temp folder while the rig runs: %v", found)
		}
		if cancelled {
			cancel()
		}
		x.Close(ctx)
		cancel()
		left, _ := filepath.Glob(filepath.Join(dir, jvmSeedsDir+"*"))
		if len(left) > 0 || exists(x.jvm.dir) {
			t.Errorf("cancelled %v: after Close, %v are left", cancelled, append(left, x.jvm.dir))
		}
		if found := tempJVMEntries(t); len(found) > 0 {
			t.Errorf("cancelled %v: after Close, the system's temp folder holds %v", cancelled, found)
		}
	}
}

// A rig without a results directory has nowhere to keep seeds: refused,
// rather than falling back on the system's temp folder.
func TestAJVMRigWithoutADirectoryIsRefused(t *testing.T) {
	needJar(t)
	_, err := NewRig(context.Background(), RigConfig{}, []Case{{JVM: &JVM{}, Op: transport.OpGet, Model: "text", Count: 10, Seed: 1}})
	if err == nil {
		t.Fatal("NewRig without Dir, with a JVM case: no error")
	}
}

func isUnder(path, dir string) bool {
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// needJar skips without the JVM node's build, unless HOPBENCH_REQUIRE_JVM
// is set (make test sets it).
func needJar(t *testing.T) {
	t.Helper()
	if _, err := jvm.Jar(); err != nil {
		if os.Getenv("HOPBENCH_REQUIRE_JVM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
