package network_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/network"
)

// kernel skips, saying why, where kernel emulation cannot run.
func kernel(t *testing.T) network.Capabilities {
	t.Helper()
	if testing.Short() {
		t.Skip("makes network namespaces")
	}
	c := network.Detect()
	if c.Missing != "" {
		t.Skip(c.Missing)
	}
	return c
}

// namesOf lists the namespaces and links whose names start with prefix.
func namesOf(t *testing.T, prefix string) []string {
	t.Helper()
	var names []string
	for _, args := range [][]string{{"netns", "list"}, {"-o", "link", "show"}} {
		out, err := exec.Command("ip", args...).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range strings.Fields(string(out)) {
			if strings.HasPrefix(f, prefix) {
				names = append(names, f)
			}
		}
	}
	return names
}

// Bandwidth alone works through tbf in namespaces: a 100 kB request and
// its 100 kB reply between two hosts at 8 Mbit/s take 200 ms at least, and
// the lab leaves nothing behind.
func TestKernelBandwidthBetweenHostsOfTheirOwn(t *testing.T) {
	kernel(t)
	p := network.Profile{Bandwidth: 8_000_000}
	lab, err := network.NewLab(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := lab.Shape(p); err != nil {
		lab.Close()
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			lab.Close()
		}
	}()
	from, to := lab.Hosts()[0], lab.Hosts()[1]
	ln, err := to.Listen(to.Addr + ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 100_000)
		if _, err := io.ReadFull(c, buf); err == nil {
			c.Write(buf)
		}
	}()
	conn, err := from.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	go conn.Write(make([]byte, 100_000))
	if _, err := io.ReadFull(conn, make([]byte, 100_000)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("a 100 kB request and reply at 8 Mbit/s between namespaces took %v, want 200 ms at least", took)
	}
	m, err := network.MeasureKernel(context.Background(), p, from, to)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", m)
	// tbf caps the wire's bits and the measure counts payload: TCP/IP
	// headers take about 5 % of the rate, and a loaded machine (make test
	// runs packages side by side) loses more; above the rate it cannot be.
	if m.Mbit < 8*0.75 || m.Mbit > 8*1.02 || m.Mechanism != network.Kernel {
		t.Errorf("measured %s, want kernel and 6 to 8.16 Mbit/s of payload", m)
	}
	conn.Close()
	ln.Close()
	if err := lab.Close(); err != nil {
		t.Error(err)
	}
	closed = true
	if left := namesOf(t, "hb"+strconv.FormatInt(int64(os.Getpid()), 36)+"_"); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// Delay without netem is refused, naming the qdisc and the alternative.
func TestKernelModeRefusesWhatTheKernelLacks(t *testing.T) {
	c := kernel(t)
	err := network.Profile{Delay: 5 * time.Millisecond}.CheckKernel(c)
	if c.Netem {
		if err != nil {
			t.Errorf("this kernel has netem, yet delay was refused: %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), "netem") || !strings.Contains(err.Error(), "in-process") {
		t.Errorf("delay without netem: %v; want it refused naming netem and the in-process alternative", err)
	}
	if err := (network.Profile{Bandwidth: 8_000_000}).CheckKernel(c); err != nil {
		t.Errorf("bandwidth alone refused: %v", err)
	}
}

// A lab whose process died (killed before it could close it) is removed
// by the next run's CleanStale; a live process's lab is left alone.
func TestStaleLabsAreCleanedUp(t *testing.T) {
	kernel(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	id := "hb" + strconv.FormatInt(int64(dead.Process.Pid), 36) + "_"
	for _, args := range [][]string{{"link", "add", id + "r", "type", "veth", "peer", "name", id + "s"}, {"netns", "add", id + "0"}} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	lab, err := network.NewLab(1)
	if err != nil {
		t.Fatal(err)
	}
	defer lab.Close()
	if err := network.CleanStale(); err != nil {
		t.Fatal(err)
	}
	if left := namesOf(t, id); len(left) > 0 {
		t.Errorf("a dead process's lab is still there: %v", left)
	}
	if live := namesOf(t, lab.Hosts()[0].NS); len(live) == 0 {
		t.Error("a live process's lab was removed")
	}
}
