package stats

import (
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestSummaryAndEncodingRoundTrip(t *testing.T) {
	h := NewHistogram()
	for i := 1; i <= 1000; i++ {
		Record(h, time.Duration(i)*time.Millisecond)
	}
	Record(h, 2*time.Minute) // clamped, not lost
	s := Summarize(h)
	if s.Count != 1001 || s.P50Us < 499_000 || s.P50Us > 502_000 || s.MaxUs < 59_900_000 {
		t.Fatalf("summary %+v", s)
	}
	enc, err := Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got := Summarize(back); got != s {
		t.Fatalf("decoded summary %+v, want %+v", got, s)
	}
	if _, err := Decode("not a histogram"); err == nil {
		t.Fatal("decoding garbage succeeded")
	}
	if (Summarize(NewHistogram()) != Summary{}) {
		t.Fatal("empty histogram has figures")
	}
}

// processCPU is this process's CPU time by the kernel's process clock,
// which neither ReadProc nor SelfCPU reads.
func processCPU(t *testing.T) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// burnCPU spins until this process has used d more CPU time: CPU time,
// not time on the clock, so a machine busy with other processes makes it
// take longer, never use less.
func burnCPU(t *testing.T, d time.Duration) {
	t.Helper()
	from, began := processCPU(t), time.Now()
	for processCPU(t)-from < d {
		if time.Since(began) > time.Minute {
			t.Fatalf("this process got less than %v of CPU in a minute", d)
		}
	}
}

// ReadProc and SelfCPU count the CPU time this process burns, in seconds:
// checked against the kernel's process clock over a burn of 200 ms, so
// that another process keeping the machine busy cannot fail it, while a
// zero or a unit off by 100 does.
func TestReadProcOfThisProcess(t *testing.T) {
	const burn = 200 * time.Millisecond
	c0, s0 := processCPU(t), SelfCPU()
	p0, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	burnCPU(t, burn)
	p, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	s1, c1 := SelfCPU(), processCPU(t)
	used := (c1 - c0).Seconds() // the burn, and whatever else ran meanwhile
	// /proc counts in ticks of 10 ms: each reading may be one tick short.
	if got := p.CPUSeconds - p0.CPUSeconds; got < 0.5*burn.Seconds() || got > used+0.02 {
		t.Errorf("ReadProc's CPU grew %.3fs over a burn of %v (%.3fs used in all)", got, burn, used)
	}
	if got := (s1 - s0).Seconds(); got < 0.5*burn.Seconds() || got > used+0.001 {
		t.Errorf("SelfCPU grew %.3fs over a burn of %v (%.3fs used in all)", got, burn, used)
	}
	if p.RSSBytes < 1<<20 || p.PeakRSSBytes < p.RSSBytes {
		t.Fatalf("implausible %+v", p)
	}
	// 16 MiB written is 16 MiB of anonymous memory resident, part of RSS.
	ballast := make([]byte, 16<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	q, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if q.AnonRSSBytes < 16<<20 || q.AnonRSSBytes > q.RSSBytes {
		t.Fatalf("anonymous RSS %d with 16 MiB in use, RSS %d", q.AnonRSSBytes, q.RSSBytes)
	}
	runtime.KeepAlive(ballast)
	if _, err := ReadProc(-1); err == nil {
		t.Fatal("no error for a missing process")
	}
}
