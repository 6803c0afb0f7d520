package jvm_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/results"
)

// The pauses of G1's and Serial's logs give the peaks; lines that are not
// pauses (the collector's name, a concurrent cycle) are passed over.
func TestAGCLogGivesTheHeapsPeaks(t *testing.T) {
	log := `[0.032s] Using G1
[0.889s] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 3M->2M(10M) 11.281ms
[1.420s] GC(3) Concurrent Mark Cycle
[1.433s] GC(3) Pause Remark 2M->2M(10M) 0.876ms
[1.780s] GC(8) Pause Young (Concurrent Start) (G1 Humongous Allocation) 212M->140M(296M) 12.240ms
[1.801s] GC(9) Concurrent Mark Cycle 20.212ms
[2.001s] GC(10) Pause Full (Allocation Failure) 1G->900M(1G) 801.2ms
[2.101s] GC(11) Pause Young (Allocation Failure) 4095K->1023K(9728K) 1.0ms
`
	got, err := jvm.HeapOf(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := results.Heap{UsedPeak: 1 << 30, CommittedPeak: 1 << 30, Pauses: 5}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got, _ := jvm.HeapOf(strings.NewReader("[0.1s] Using G1\n")); got != (results.Heap{}) {
		t.Errorf("a log without pauses gave %+v", got)
	}
}

// The flag is one the JVM here takes, path quoted, and writes what HeapOf
// reads: a program that churns 200 MB through a 64 MB heap pauses, and
// never commits more than the heap may have.
func TestTheJVMWritesTheLogHeapOfReads(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a JVM")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "Churn.java")
	if err := os.WriteFile(src, []byte(`public class Churn { public static void main(String[] a) {
  java.util.List<byte[]> l = new java.util.ArrayList<>();
  for (int i = 0; i < 2000; i++) { l.add(new byte[100_000]); if (l.size() > 200) l.clear(); }
} }`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a:b, c", "gc.log")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if out, err := exec.Command(java, "-Xmx64m", jvm.HeapLogFlag(path), src).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := jvm.HeapOf(f)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pauses == 0 || got.UsedPeak < 20<<20 || got.CommittedPeak < got.UsedPeak || got.CommittedPeak > 64<<20 {
		t.Errorf("got %+v: want pauses, a used peak of at least 20 MiB (200 arrays of 100 kB) and a committed one up to the 64 MiB heap", got)
	}
}
