package agent_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/hopbench/hopbench/internal/agent"
	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all"
	"github.com/hopbench/hopbench/internal/userschema"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// serve runs an agent on a free loopback port for the test's length.
func serve(t *testing.T, name string, auth agent.Auth) (string, *agent.Server) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &agent.Server{Host: name, Advertise: "127.0.0.1"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- agent.Serve(ctx, s, l, auth) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent %s: %v", name, err)
		}
	})
	return l.Addr().String(), s
}

func bundle(t *testing.T) *certs.Bundle {
	t.Helper()
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAnAgentRefusesACoordinatorWithoutTheRunsCertificate(t *testing.T) {
	run := bundle(t)
	addr, srv := serve(t, "a", agent.Auth{TLS: run})
	ctx := context.Background()
	trustsTheAgent := x509.NewCertPool()
	trustsTheAgent.AppendCertsFromPEM(run.CAPEM)
	another := bundle(t).Client(true)
	another.RootCAs = trustsTheAgent // it would take the agent, but its own certificate is another run's
	for name, tc := range map[string]*tls.Config{
		"another run's client certificate": another,
		"no client certificate":            {RootCAs: trustsTheAgent},
	} {
		t.Run(name, func(t *testing.T) {
			if holds(t, addr, grpc.WithTransportCredentials(credentials.NewTLS(tc))) {
				t.Fatal("the agent took a call from a coordinator without the run's certificate")
			}
			if srv.Sessions() != 0 {
				t.Errorf("the agent holds %d sessions after refusing", srv.Sessions())
			}
		})
	}
	for name, auth := range map[string]agent.Auth{"a coordinator of another run": {TLS: bundle(t)}, "a token instead": {Token: strings.Repeat("x", 32)}} {
		t.Run(name, func(t *testing.T) {
			c, err := agent.Dial(ctx, "a", addr, auth)
			if err == nil {
				c.Close()
				t.Fatal("the agent took a coordinator without the run's certificate")
			}
			if !strings.Contains(err.Error(), "host a: agent "+addr) {
				t.Errorf("the error does not name the host and its agent: %v", err)
			}
		})
	}
	c, err := agent.Dial(ctx, "a", addr, agent.Auth{TLS: run})
	if err != nil {
		t.Fatalf("the run's own certificates: %v", err)
	}
	defer c.Close()
	if c.Held.Host != "a" || c.Held.Advertise != "127.0.0.1" || srv.Sessions() != 1 {
		t.Errorf("held %+v, %d sessions", c.Held, srv.Sessions())
	}
}

func TestAnAgentWithATokenRefusesAnyOther(t *testing.T) {
	token := strings.Repeat("s", 24)
	addr, _ := serve(t, "a", agent.Auth{Token: token})
	ctx := context.Background()
	if c, err := agent.Dial(ctx, "a", addr, agent.Auth{Token: strings.Repeat("t", 24)}); err == nil {
		c.Close()
		t.Fatal("the agent took a wrong token")
	} else if !strings.Contains(err.Error(), "token") {
		t.Errorf("the refusal does not say why: %v", err)
	}
	c, err := agent.Dial(ctx, "a", addr, agent.Auth{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// With both a bundle and a token, an agent requires both: the token does
// not stand in for the run's client certificate, nor the certificate for
// the token.
func TestAnAgentWithTLSAndATokenRequiresBoth(t *testing.T) {
	run, token := bundle(t), strings.Repeat("s", 24)
	addr, _ := serve(t, "a", agent.Auth{TLS: run, Token: token})
	ctx := context.Background()
	if holds(t, addr, grpc.WithTransportCredentials(credentials.NewTLS(run.Client(false))), grpc.WithPerRPCCredentials(tokenOnly(token))) {
		t.Error("the agent took the token without the run's client certificate")
	}
	if c, err := agent.Dial(ctx, "a", addr, agent.Auth{TLS: run, Token: strings.Repeat("t", 24)}); err == nil {
		c.Close()
		t.Error("the agent took the run's certificate with a wrong token")
	}
	c, err := agent.Dial(ctx, "a", addr, agent.Auth{TLS: run, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// holds reports whether the agent at addr gives a session to a
// coordinator dialling with opts, which the agent's client package would
// never make.
func holds(t *testing.T, addr string, opts ...grpc.DialOption) bool {
	t.Helper()
	conn, err := grpc.NewClient(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hold, err := agentv1.NewAgentClient(conn).Hold(context.Background(), &agentv1.HoldRequest{Session: "x"})
	if err == nil {
		_, err = hold.Recv()
	}
	return err == nil
}

type tokenOnly string

func (t tokenOnly) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(t)}, nil
}

func (tokenOnly) RequireTransportSecurity() bool { return true }

func TestAnAgentNeedsAWayToAuthenticate(t *testing.T) {
	if _, err := agent.LoadAuth("", ""); err == nil || !strings.Contains(err.Error(), "--tls-dir") {
		t.Errorf("no auth: %v", err)
	}
	short := filepath.Join(t.TempDir(), "token")
	os.WriteFile(short, []byte("abc\n"), 0o600)
	if _, err := agent.LoadAuth("", short); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("a 3-byte token: %v", err)
	}
	if _, err := agent.LoadAuth(filepath.Join(t.TempDir(), "none"), ""); err == nil || !strings.Contains(err.Error(), "hopbench hosts certs") {
		t.Errorf("a missing bundle: %v", err)
	}
}

// A load split across two generator hosts merges into one histogram
// holding every request of both.
// twoGenerators starts a node of st and two agents, "a" and "b", connected;
// all are closed when the test ends.
func twoGenerators(t *testing.T, st transport.Stack) (string, []*agent.Client) {
	t.Helper()
	n, err := node.Start(context.Background(), node.Config{Stack: st, Admin: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	run := bundle(t)
	var gens []*agent.Client
	for _, name := range []string{"a", "b"} {
		addr, _ := serve(t, name, agent.Auth{TLS: run})
		c, err := agent.Dial(context.Background(), name, addr, agent.Auth{TLS: run})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		gens = append(gens, c)
	}
	return n.Addr(), gens
}

// echoShares are shares of an echo of 10 users to addr, one a load.
func echoShares(cfgs []load.Config, st transport.Stack, addr string) []agent.Share {
	var shares []agent.Share
	for _, c := range cfgs {
		shares = append(shares, agent.Share{Load: c, Target: load.TargetConfig{Stack: st, Addr: addr, Op: transport.OpEcho, Model: "user", Count: 10}})
	}
	return shares
}

func TestALoadSplitAcrossTwoHostsMergesTheirHistograms(t *testing.T) {
	st, _ := transport.ParseStack("rest")
	addr, gens := twoGenerators(t, st)
	cfgs, err := agent.Split(load.Config{Kind: load.Closed, Clients: 3, Warmup: 100 * time.Millisecond, Duration: 400 * time.Millisecond}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if cfgs[0].Clients != 2 || cfgs[1].Clients != 1 {
		t.Errorf("3 clients split as %d and %d, want 2 and 1", cfgs[0].Clients, cfgs[1].Clients)
	}
	shares := echoShares(cfgs, st, addr)
	opened := 0
	merged, each, err := agent.RunShares(context.Background(), gens, shares, func() { opened++ })
	if err != nil {
		t.Fatal(err)
	}
	if opened != 1 {
		t.Errorf("the window opened %d times, want once when both shares' had", opened)
	}
	a, b := each[0].Result, each[1].Result
	if a.Requests == 0 || b.Requests == 0 {
		t.Fatalf("a share measured nothing: %d and %d requests", a.Requests, b.Requests)
	}
	if got, want := merged.Result.Latency.TotalCount(), a.Latency.TotalCount()+b.Latency.TotalCount(); got != want {
		t.Errorf("merged histogram holds %d requests, want %d + %d = %d", got, a.Latency.TotalCount(), b.Latency.TotalCount(), want)
	}
	if merged.Result.Requests != a.Requests+b.Requests || merged.Result.Errors != 0 {
		t.Errorf("merged %d requests, %d errors; shares %d and %d", merged.Result.Requests, merged.Result.Errors, a.Requests, b.Requests)
	}
	if merged.Result.Latency.Max() < max(a.Latency.Max(), b.Latency.Max()) {
		t.Error("the merged maximum is below a share's")
	}
	if merged.Wire.Written != each[0].Wire.Written+each[1].Wire.Written || merged.Wire.Written == 0 {
		t.Errorf("wire bytes %d, shares %d and %d", merged.Wire.Written, each[0].Wire.Written, each[1].Wire.Written)
	}
}

func TestAnOpenLoopSplitAcrossTwoHostsCarriesItsLateness(t *testing.T) {
	st, _ := transport.ParseStack("rest")
	addr, gens := twoGenerators(t, st)
	cfgs, err := agent.Split(load.Config{Kind: load.Rate, Rate: 200, Warmup: 100 * time.Millisecond, Duration: 400 * time.Millisecond}, 2)
	if err != nil {
		t.Fatal(err)
	}
	shares := echoShares(cfgs, st, addr)
	merged, each, err := agent.RunShares(context.Background(), gens, shares, func() {})
	if err != nil {
		t.Fatal(err)
	}
	a, b := each[0].Result.Lateness, each[1].Result.Lateness
	if a == nil || b == nil || a.TotalCount() == 0 || b.TotalCount() == 0 {
		t.Fatalf("a share of an open loop came back without its generator lateness: %v and %v", a, b)
	}
	if got, want := merged.Result.Lateness.TotalCount(), a.TotalCount()+b.TotalCount(); got != want {
		t.Errorf("merged lateness holds %d requests, want %d + %d = %d", got, a.TotalCount(), b.TotalCount(), want)
	}
}

func TestSplitRefusesWhatCannotBeShared(t *testing.T) {
	for _, c := range []load.Config{
		{Kind: load.Closed, Clients: 1, Duration: time.Second},
		{Kind: load.Closed, Clients: 4, Requests: 100},
		{Kind: load.Ramp},
	} {
		if _, err := agent.Split(c, 2); err == nil {
			t.Errorf("split %+v in two", c)
		}
	}
	cfgs, err := agent.Split(load.Config{Kind: load.Rate, Rate: 300, Duration: time.Second}, 3)
	if err != nil || cfgs[2].Rate != 100 {
		t.Errorf("a rate of 300 in 3: %v %v", cfgs, err)
	}
}

// A session brings its users' messages whole: one that does not compile
// on the host is refused as the session opens, naming the host, the
// message and the place; a node asked to serve a message the session did
// not bring is refused, naming it.
func TestASessionBringsItsUsersMessages(t *testing.T) {
	auth := agent.Auth{Token: strings.Repeat("t", agent.MinTokenBytes)}
	addr, s := serve(t, "h", auth)
	s.BrokerDir = t.TempDir()
	bad := userschema.Bundle{Files: map[string][]byte{"m.proto": []byte("syntax = \"proto3\";\nmessage M { int32 a = 1 }\n")}, Names: []string{"m.proto"}, Message: "M"}
	if _, err := agent.Dial(context.Background(), "h", addr, auth, bad); err == nil || !strings.Contains(err.Error(), "host h: M:") || !strings.Contains(err.Error(), "m.proto:2:") {
		t.Errorf("a message with a syntax error: %v, want it refused naming the host, message and place", err)
	}
	dir := filepath.Join("..", "..", "examples", "proto")
	p, err := userschema.Load(context.Background(), userschema.Source{Files: []string{filepath.Join(dir, "shop", "orders.proto")}, ImportPaths: []string{dir}, Message: "shop.Order"})
	if err != nil {
		t.Fatal(err)
	}
	good, err := p.Bundle()
	if err != nil {
		t.Fatal(err)
	}
	c, err := agent.Dial(context.Background(), "h", addr, auth, good)
	if err != nil {
		t.Fatal(err)
	}
	if unpacked, _ := filepath.Glob(filepath.Join(s.BrokerDir, "messages-*", "0", "proto", "shop", "orders.proto")); len(unpacked) != 1 {
		t.Errorf("the session's copy of orders.proto: %v", unpacked)
	}
	if _, err := c.StartNode(context.Background(), agent.NodeSpec{Message: "shop.Ordr"}); err == nil || !strings.Contains(err.Error(), "shop.Ordr, which the session did not bring") {
		t.Errorf("a node of a message the session lacks: %v", err)
	}
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for left, _ := filepath.Glob(filepath.Join(s.BrokerDir, "messages-*")); len(left) > 0; left, _ = filepath.Glob(filepath.Join(s.BrokerDir, "messages-*")) {
		if time.Now().After(deadline) {
			t.Fatalf("the session ended and left %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An agent refuses a coordinator of another agent protocol (before 2,
// one that sent a node's flags), saying which each speaks.
func TestAnAgentRefusesACoordinatorOfAnotherProtocol(t *testing.T) {
	auth := agent.Auth{Token: strings.Repeat("t", agent.MinTokenBytes)}
	addr, _ := serve(t, "h", auth)
	opts, err := auth.DialOptions()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stream, err := agentv1.NewAgentClient(conn).Hold(context.Background(), &agentv1.HoldRequest{Session: "old"})
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "agent protocol 1, this agent 2") {
		t.Errorf("a coordinator of protocol 1: %v, want it refused naming both protocols", err)
	}
}

// A node started through an agent runs the typed config its coordinator
// gave: the agent renders it as its own hopbench node's flags.
func TestAnAgentStartsANodeFromItsTypedConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("builds hopbench and starts a node")
	}
	bin := filepath.Join(t.TempDir(), "hopbench")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/hopbench").CombinedOutput(); err != nil {
		t.Fatalf("building hopbench: %v\n%s", err, out)
	}
	auth := agent.Auth{Token: strings.Repeat("t", agent.MinTokenBytes)}
	addr, s := serve(t, "h", auth)
	s.Bin = bin
	c, err := agent.Dial(context.Background(), "h", addr, auth)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seed := uint64(3)
	n, err := c.StartNodeConfig(context.Background(), 0, nodeapi.Config{Stack: "graphql+json", Seed: &seed, Cache: true,
		Options: map[string]string{"introspection": "false"}, MaxConns: 2000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	resp, err := http.Get("http://" + n.AdminAddr() + "/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(n.Addr(), "127.0.0.1:") {
		t.Errorf("the node at %s: /ready says %s, want it serving on the advertised address", n.Addr(), resp.Status)
	}
	if _, err := c.StartNodeConfig(context.Background(), 2, nodeapi.Config{Stack: "rest", Options: map[string]string{"a=b": "c"}}, nil); err == nil || !strings.Contains(err.Error(), `Options["a=b"]`) {
		t.Errorf("a node option its flag would cut: %v, want it refused naming the field", err)
	}
}
