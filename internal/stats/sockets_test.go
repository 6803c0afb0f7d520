package stats

import (
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// The bytes this process's sockets carry are what was written through
// them: a connection to itself sends 100 000 bytes one way.
func TestSocketBytesCountAConnectionsBytes(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got, done := make(chan int64, 1), make(chan struct{})
	defer close(done)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- -1
			return
		}
		n, _ := io.CopyN(io.Discard, c, 100_000)
		got <- n
		<-done // open while its bytes are read
		c.Close()
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before, err := ReadSocketBytes(os.Getpid())
	if err != nil {
		t.Skipf("no sock_diag here: %v", err)
	}
	if _, err := c.Write(make([]byte, 100_000)); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != 100_000 {
		t.Fatalf("read %d", n)
	}
	after, err := ReadSocketBytes(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Both ends are this process's: sent by one, received by the other.
	if sent, received := after.Since(before); sent < 100_000 || received < 100_000 {
		t.Errorf("sent %d, received %d: want 100 000 each at least", sent, received)
	}
}

// A process's scheduler time grows by about the CPU it burns, at a finer
// grain than clock ticks.
func TestTaskCPUCountsWhatAProcessRuns(t *testing.T) {
	before, err := TaskCPU(os.Getpid())
	if err != nil {
		t.Skipf("no schedstat here: %v", err)
	}
	start := time.Now()
	for time.Since(start) < 30*time.Millisecond {
	}
	after, err := TaskCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := after - before; d < 20*time.Millisecond || d%(10*time.Millisecond) == 0 {
		t.Errorf("ran %v for 30 ms of spinning: want at least 20 ms, not whole ticks", d)
	}
}
