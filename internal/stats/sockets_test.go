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

// A process's scheduler time grows by about the CPU it burns (as
// getrusage counts it, to the microsecond), whatever else the machine
// runs meanwhile.
func TestTaskCPUCountsWhatAProcessRuns(t *testing.T) {
	before, err := TaskCPU(os.Getpid())
	if err != nil {
		t.Skipf("no schedstat here: %v", err)
	}
	used := SelfCPU()
	for deadline := time.Now().Add(10 * time.Second); SelfCPU()-used < 30*time.Millisecond && time.Now().Before(deadline); {
	}
	spun := SelfCPU() - used
	after, err := TaskCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := after - before; d < spun*8/10 {
		t.Errorf("the scheduler counted %v of %v on a CPU", d, spun)
	}
}
