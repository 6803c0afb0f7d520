package environment

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestDescribeReadsTheMachine(t *testing.T) {
	env := Describe()
	if env.Go != runtime.Version() || env.Cores != runtime.NumCPU() || env.Hopbench == "" {
		t.Errorf("build fields: %+v", env)
	}
	if runtime.GOOS == "linux" && (env.CPU == "unknown" || env.Kernel == "unknown") {
		t.Errorf("on Linux the CPU model and kernel come from /proc: %+v", env)
	}
	if env.Time.IsZero() {
		t.Error("no time recorded")
	}
}

func TestGCPercentIsReadNotSet(t *testing.T) {
	old := debug.SetGCPercent(250)
	defer debug.SetGCPercent(old)
	if got := Describe().GCPercent; got != 250 {
		t.Errorf("GCPercent after SetGCPercent(250) = %d", got)
	}
	debug.SetGCPercent(-1)
	if got := GCPercent(); got != -1 {
		t.Errorf("GCPercent with collection off = %d, want -1", got)
	}
	if got := GCPercent(); got != -1 {
		t.Errorf("reading GCPercent changed it: %d", got)
	}
}
