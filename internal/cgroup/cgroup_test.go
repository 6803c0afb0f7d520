package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A process that allocates past its group's limit is killed by the kernel,
// and the group says so.
func TestAProcessOverItsLimitIsKilledAndCounted(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("memory limits need root")
	}
	m, err := NewMemory(fmt.Sprintf("hopbench-test-%d", os.Getpid()), 32<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// A shell that allocates ~200 MB in a string once it is in the group.
	cmd := exec.Command("sh", "-c", "read go; x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo ${#x}")
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := m.Add(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	stdin.Write([]byte("go\n"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the process was not stopped by its limit")
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("process ended with %v, want killed", cmd.ProcessState)
	}
	if m.OOMKills() < 1 {
		t.Error("the group counted no OOM kill")
	}
}
