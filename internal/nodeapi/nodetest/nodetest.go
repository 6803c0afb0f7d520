// Package nodetest checks that a node honours the node contract (package
// nodeapi), whatever its runtime and whoever starts it: point Check at a
// Launch (Command for a process started here; an agent's StartNode for
// one started on a host).
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

// Node is a node under check: what its ready line said, how to ask it to
// stop as an orchestrator would (SIGINT to a process, StopNode to an
// agent), and when it has ended.
type Node interface {
	Ready() nodeapi.Ready
	Interrupt() error
	Done() <-chan struct{}
}

// Launch starts a node with cfg (the contract's --announce, --listen and
// --admin set) and stops it when the test ends.
type Launch func(t *testing.T, cfg nodeapi.Config) Node

// Check starts a node of cfg through launch and checks that it announces
// itself, serves cfg.Stack, counts the calls it serves in typed stats with
// every phase, resets them, and ends when interrupted. cfg.Listen, if
// set, is where it serves (a broker stack's broker URL).
func Check(t *testing.T, cfg nodeapi.Config, launch Launch) {
	t.Helper()
	cfg.Announce, cfg.Admin = true, "127.0.0.1:0"
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	n := launch(t, cfg)
	ready := n.Ready()
	if ready.Stack != cfg.Stack {
		t.Errorf("ready line names stack %q, want %q", ready.Stack, cfg.Stack)
	}
	admin := nodeapi.Admin{Addr: ready.Admin}
	if ok, why, err := admin.Ready(context.Background()); err != nil || !ok {
		t.Fatalf("GET /ready: ok %v (%s), %v", ok, why, err)
	}
	const calls = 10
	serve(t, cfg.Stack, ready.Addr, calls)
	checkStats(t, "http://"+ready.Admin, calls)
	if err := admin.Reset(context.Background()); err != nil {
		t.Fatalf("POST /reset: %v", err)
	}
	checkStats(t, "http://"+ready.Admin, 0)
	if err := n.Interrupt(); err != nil {
		t.Fatalf("interrupting the node: %v", err)
	}
	select {
	case <-n.Done():
	case <-time.After(10 * time.Second):
		t.Error("the node did not end within 10s of being interrupted")
	}
}

// Command launches nodes as child processes: argv (a node command and its
// own flags, e.g. hopbench node, or java -jar node.jar) followed by the
// configuration's flags.
func Command(argv ...string) Launch {
	return func(t *testing.T, cfg nodeapi.Config) Node {
		t.Helper()
		cmd, ready := Start(t, append(argv, cfg.Args()...)...)
		p := &process{cmd: cmd, ready: ready, done: make(chan struct{})}
		go func() { cmd.Wait(); close(p.done) }()
		return p
	}
}

type process struct {
	cmd   *exec.Cmd
	ready nodeapi.Ready
	done  chan struct{}
}

func (p *process) Ready() nodeapi.Ready  { return p.ready }
func (p *process) Interrupt() error      { return p.cmd.Process.Signal(syscall.SIGINT) }
func (p *process) Done() <-chan struct{} { return p.done }

// Start starts argv (a node command and all its flags, --announce among
// them), reads its ready line, and kills it when the test ends.
func Start(t *testing.T, argv ...string) (*exec.Cmd, nodeapi.Ready) {
	t.Helper()
	return StartEnv(t, nil, argv...)
}

// StartEnv is Start with env as the node's environment (nil: this
// process's).
func StartEnv(t *testing.T, env []string, argv ...string) (*exec.Cmd, nodeapi.Ready) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Stderr = env, os.Stderr
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
