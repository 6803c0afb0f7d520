// Package nodetest checks that a node process honours the node contract
// (package nodeapi), whatever its runtime: point Check at the command that
// starts it.
package nodetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all" // Check takes any stack a node may serve
)

// Check starts argv (a node command and its own flags, e.g. hopbench node
// --stack rest) with the contract's --announce --listen 127.0.0.1:0
// --admin 127.0.0.1:0 and checks that it announces itself, serves stack,
// counts the calls it serves in typed stats with every phase, resets them,
// and ends on SIGINT.
func Check(t *testing.T, stack string, argv ...string) {
	t.Helper()
	cmd, ready := Start(t, argv...)
	if ready.Stack != stack {
		t.Errorf("ready line names stack %q, want %q", ready.Stack, stack)
	}
	admin := "http://" + ready.Admin
	if resp, err := http.Get(admin + "/ready"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /ready: %v %v", resp, err)
	}
	const calls = 10
	serve(t, stack, ready.Addr, calls)
	checkStats(t, admin, calls)
	if resp, err := http.Post(admin+"/reset", "", nil); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("POST /reset: %v %v", resp, err)
	}
	checkStats(t, admin, 0)
	cmd.Process.Signal(syscall.SIGINT)
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Error("the node did not end within 10s of SIGINT")
	}
}

// Start starts argv (a node command and its own flags) with the
// contract's --announce --listen 127.0.0.1:0 --admin 127.0.0.1:0, reads its
// ready line, and kills it when the test ends.
func Start(t *testing.T, argv ...string) (*exec.Cmd, nodeapi.Ready) {
	t.Helper()
	cmd := exec.Command(argv[0], append(argv[1:], "--announce", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0")...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	ready, err := nodeapi.ParseReady(line)
	if err != nil {
		t.Fatalf("ready line: %v", err)
	}
	return cmd, ready
}

// serve makes calls echo calls to the node, each answered correctly.
func serve(t *testing.T, stack, addr string, calls int) {
	t.Helper()
	st, err := transport.ParseStack(stack)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := load.DialTarget(context.Background(), load.TargetConfig{Stack: st, Addr: addr, Op: transport.OpEcho, Model: "text", Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	call := tgt.NewCall()
	for i := range calls {
		if err := call(context.Background()); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
}

// Stats reads a node's /stats from its admin URL (http://host:port) as
// the contract types them, strictly: a key the contract lacks fails.
func Stats(t *testing.T, admin string) nodeapi.Stats {
	t.Helper()
	resp, err := http.Get(admin + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s nodeapi.Stats
	dec := json.NewDecoder(resp.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("GET /stats is not the contract's Stats: %v", err)
	}
	return s
}

// checkStats reads /stats and checks it counts want requests in every
// phase.
func checkStats(t *testing.T, admin string, want int64) {
	t.Helper()
	s := Stats(t, admin)
	if s.Requests != want {
		t.Errorf("stats count %d requests, want %d", s.Requests, want)
	}
	for _, p := range nodeapi.Phases {
		if p == "downstream" {
			continue // a node with none may time its (empty) calls or not
		}
		if got := s.Phases[p].Count; got != want {
			t.Errorf("phase %s counts %d, want %d (%s)", p, got, want, fmt.Sprint(s.Phases))
		}
	}
}
