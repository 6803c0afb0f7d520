package stats

import (
	"os"
	"runtime"
	"testing"
	"time"
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

func TestReadProcOfThisProcess(t *testing.T) {
	burn := time.Now()
	for time.Since(burn) < 30*time.Millisecond {
	}
	p, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if p.CPUSeconds <= 0 || p.RSSBytes < 1<<20 || p.PeakRSSBytes < p.RSSBytes {
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
	if SelfCPU() < 30*time.Millisecond {
		t.Fatalf("self CPU %v after a 30ms busy loop", SelfCPU())
	}
	if _, err := ReadProc(-1); err == nil {
		t.Fatal("no error for a missing process")
	}
}
