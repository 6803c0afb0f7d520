package lease

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A child process (this test binary again) takes a lease in
// HOPBENCH_LEASE_CHILD, says so, and waits to be killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv("HOPBENCH_LEASE_CHILD"); dir != "" {
		var err error
		if os.Getenv("HOPBENCH_LEASE_LOCK") != "" {
			_, err = Lock(context.Background(), filepath.Join(dir, "start.lock"), nil)
		} else {
			_, err = Take(dir)
		}
		if err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child starts a process holding a lease (or the lock) in dir.
func child(t *testing.T, dir string, lockIt bool) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HOPBENCH_LEASE_CHILD="+dir)
	if lockIt {
		cmd.Env = append(cmd.Env, "HOPBENCH_LEASE_LOCK=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("child: %q", line)
	}
	return cmd
}

func TestHoldersSeesOtherProcessesUntilTheyDie(t *testing.T) {
	dir := t.TempDir()
	mine, err := Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Release()
	if hs, err := Holders(dir, mine); err != nil || len(hs) != 0 {
		t.Fatalf("only my lease: holders %v, %v", hs, err)
	}
	other := child(t, dir, false)
	hs, err := Holders(dir, mine)
	if err != nil || len(hs) != 1 || hs[0].PID != other.Process.Pid || !strings.Contains(hs[0].Command, "lease.test") {
		t.Fatalf("holders with a child leasing: %+v, %v", hs, err)
	}
	other.Process.Kill() // SIGKILL: no chance to release
	other.Wait()
	if hs, err := Holders(dir, mine); err != nil || len(hs) != 0 {
		t.Fatalf("after the child died: holders %v, %v", hs, err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.lease")); len(files) != 1 {
		t.Errorf("the dead holder's file should be gone, mine kept: %v", files)
	}
	// Mine counts for anyone else.
	if hs, _ := Holders(dir, nil); len(hs) != 1 || hs[0].PID != os.Getpid() {
		t.Errorf("holders seen by another: %+v", hs)
	}
	mine.Release()
	if hs, _ := Holders(dir, nil); len(hs) != 0 {
		t.Errorf("after release: %+v", hs)
	}
}

// Lock names the holder once, as it starts to wait, and takes the lock
// once the holder is gone. Each step waits on Lock's own word that it is
// waiting, not on the clock.
func TestLockWaitsNamingTheHolder(t *testing.T) {
	dir := t.TempDir()
	other := child(t, dir, true)
	var told []Holder
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Ended as it starts to wait: it gives up, naming the holder.
	_, err := Lock(ctx, filepath.Join(dir, "start.lock"), func(h Holder) { told = append(told, h); cancel() })
	if err == nil || !strings.Contains(err.Error(), "locked by pid") {
		t.Fatalf("lock held by a child: %v", err)
	}
	if len(told) != 1 || told[0].PID != other.Process.Pid {
		t.Fatalf("busy heard %+v, want the child once", told)
	}
	// The holder dies once Lock waits for it: Lock then takes it.
	waited := false
	l, err := Lock(context.Background(), filepath.Join(dir, "start.lock"), func(Holder) {
		waited = true
		other.Process.Kill()
	})
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	if !waited {
		t.Error("Lock took a lock the child held without waiting")
	}
	l.Release()
}
