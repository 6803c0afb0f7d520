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
	if got := Describe().GCPercent; got == nil || *got != 250 {
		t.Errorf("GCPercent after SetGCPercent(250) = %v", got)
	}
	debug.SetGCPercent(0)
	if got := Describe().GCPercent; got == nil || *got != 0 {
		t.Errorf("GCPercent at GOGC=0 = %v, want 0 recorded", got)
	}
	debug.SetGCPercent(-1)
	if got := GCPercent(); got != -1 {
		t.Errorf("GCPercent with collection off = %d, want -1", got)
	}
	if got := GCPercent(); got != -1 {
		t.Errorf("reading GCPercent changed it: %d", got)
	}
}

func TestGCTargetsSaysEachTarget(t *testing.T) {
	at := func(v int) *int { return &v }
	for _, c := range []struct {
		in   []*int
		want string
	}{
		{nil, ""},
		{[]*int{nil, nil}, ""},
		{[]*int{at(400), at(400)}, "400"},
		{[]*int{at(0)}, "0"},
		{[]*int{at(-1)}, "off"},
		{[]*int{at(400), at(100), at(400)}, "400 in 2 records, 100 in 1 record"},
		{[]*int{nil, at(400)}, "not recorded in 1 record, 400 in 1 record"},
	} {
		if got := GCTargets(c.in); got != c.want {
			t.Errorf("GCTargets(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
