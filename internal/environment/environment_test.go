package environment

import (
	"runtime"
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
