package node_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/graphql"
	_ "github.com/hopbench/hopbench/internal/transport/graphql"
	_ "github.com/hopbench/hopbench/internal/transport/grpc"
	_ "github.com/hopbench/hopbench/internal/transport/rest"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// startTopology starts every node of top in this process, admin endpoints on.
func startTopology(t testing.TB, stack string, top string, tcfg transport.Config) []*node.Node {
	t.Helper()
	st, err := transport.ParseStack(stack)
	if err != nil {
		t.Fatal(err)
	}
	shape, err := topology.Parse(top)
	if err != nil {
		t.Fatal(err)
	}
	insts, err := topology.Start(context.Background(), shape, func(ctx context.Context, _ int, down []string) (topology.Instance, error) {
		return node.Start(ctx, node.Config{Stack: st, Downstream: down, Transport: tcfg, Admin: "127.0.0.1:0"})
	})
	if err != nil {
		t.Fatal(err)
	}
	nodes := make([]*node.Node, len(insts))
	for i, in := range insts {
		nodes[i] = in.(*node.Node)
	}
	t.Cleanup(func() { topology.Close(insts) })
	return nodes
}

// caller calls the entry node as a client of the stack would.
type caller struct {
	client transport.Client
	cc     codec.Codec
	req    transport.Request
}

func newCaller(t testing.TB, stack, addr string, tcfg transport.Config) *caller {
	t.Helper()
	st, _ := transport.ParseStack(stack)
	tr, _ := transport.Lookup(st.Transport)
	tcfg.Codec, tcfg.Compression = st.Codec, st.Compression
	cl, err := tr.Dial(context.Background(), addr, tcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	c, z, err := transport.BodyCodec(tr, st)
	if err != nil {
		t.Fatal(err)
	}
	return &caller{client: cl, cc: codec.Compressed(c, z, codec.DefaultMaxBytes), req: transport.Request{Codec: c, Compression: z}}
}

func (c *caller) call(t *testing.T, op transport.Op, model string, count int, body, reply proto.Message) {
	t.Helper()
	req := c.req
	req.Op, req.Model, req.Count = op, model, count
	if body != nil {
		b, err := c.cc.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		req.Body = b
	}
	out, err := c.client.Call(context.Background(), &req)
	if err != nil {
		t.Fatalf("%s %s: %v", op, model, err)
	}
	if err := c.cc.Unmarshal(out, reply); err != nil {
		t.Fatalf("%s %s: decoding the reply: %v", op, model, err)
	}
}

func users(n, copies int) *pb.UserList {
	one, _ := payload.Generate("user", n, payload.DefaultSeed)
	out := &pb.UserList{}
	for range copies {
		proto.Merge(out, one)
	}
	return out
}

func TestTopologiesOverEveryStack(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	stacks := []struct {
		stack string
		tcfg  transport.Config
	}{
		{"rest+json", transport.Config{}},
		{"rest+proto+gzip", transport.Config{HTTP2: true}},
		{"grpc", transport.Config{}},
		{"graphql", transport.Config{}},
	}
	for _, s := range stacks {
		// leaves: how many nodes generate or count, so how many copies a get
		// returns and what a post's acknowledged count sums to.
		for _, tc := range []struct {
			top    string
			leaves int
		}{{"chain:5", 1}, {"tree:2", 4}, {"star:4", 4}} {
			t.Run(s.stack+"/"+tc.top, func(t *testing.T) {
				nodes := startTopology(t, s.stack, tc.top, s.tcfg)
				c := newCaller(t, s.stack, nodes[0].Addr(), s.tcfg)

				var got pb.UserList
				c.call(t, transport.OpGet, "user", 7, nil, &got)
				if want := users(7, tc.leaves); !proto.Equal(&got, want) {
					t.Errorf("get 7 users: %d users back, want %d", len(got.Users), len(want.Users))
				}
				var ack pb.Ack
				c.call(t, transport.OpPost, "user", 0, users(5, 1), &ack)
				if ack.Count != int64(5*tc.leaves) || ack.Model != "user" {
					t.Errorf("post 5 users: ack %v, want count %d", &ack, 5*tc.leaves)
				}
				pay, _ := payload.Generate("payment", 3, 9)
				var echo pb.PaymentList
				c.call(t, transport.OpEcho, "payment", 0, pay, &echo)
				if !proto.Equal(&echo, pay) {
					t.Error("echo: the reply differs from the request")
				}
				for i, n := range nodes {
					st := n.Stats()
					if st.Requests != 3 || st.Phases["total"].Count != 3 || len(st.Errors) != 0 {
						t.Errorf("node %d: %d requests, %d timed, errors %v; want 3, 3, none", i, st.Requests, st.Phases["total"].Count, st.Errors)
					}
				}
			})
		}
	}
}

func TestCacheReusesTheEncodedGetReply(t *testing.T) {
	st, _ := transport.ParseStack("rest+proto")
	n, err := node.Start(context.Background(), node.Config{Stack: st, Cache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := newCaller(t, "rest+proto", n.Addr(), transport.Config{})
	for range 3 {
		var got pb.UserList
		c.call(t, transport.OpGet, "user", 10, nil, &got)
		if len(got.Users) != 10 {
			t.Fatalf("%d users", len(got.Users))
		}
	}
	if hits := n.Stats().CacheHits; hits != 2 {
		t.Errorf("%d cache hits for three identical gets, want 2", hits)
	}
	n.ResetStats()
	if s := n.Stats(); s.Requests != 0 || s.CacheHits != 0 || s.Phases["total"].Count != 0 {
		t.Errorf("after a reset: %+v", s)
	}
	var got pb.UserList
	c.call(t, transport.OpGet, "user", 10, nil, &got)
	if s := n.Stats(); s.Requests != 1 || s.Phases["total"].Count != 1 {
		t.Errorf("one request after a reset: %+v", s)
	}
}

func TestLimitsAndBadRequestsAreClassified(t *testing.T) {
	st, _ := transport.ParseStack("rest+json")
	n, err := node.Start(context.Background(), node.Config{Stack: st, MaxInFlight: 1, Admin: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	cl, _ := (&caller{}).dial(t, n.Addr())
	jsonC, _ := codec.Lookup("json")
	none, _ := codec.LookupCompression("none")
	_, err = cl.Call(context.Background(), &transport.Request{Op: transport.OpPost, Model: "user", Codec: jsonC, Compression: none, Body: []byte(`{"users":[{"age":"old"}]}`)})
	if transport.CodeOf(err) != transport.CodeBadRequest || !strings.Contains(err.Error(), "decoding the user body as json") {
		t.Errorf("malformed body: %v", err)
	}
	_, err = cl.Call(context.Background(), &transport.Request{Op: transport.OpGet, Model: "int", Count: 5, Codec: jsonC, Compression: none})
	if transport.CodeOf(err) != transport.CodeBadRequest || !strings.Contains(err.Error(), "above its maximum of 1") {
		t.Errorf("int count 5: %v", err)
	}
	resp, err := http.Get("http://" + n.AdminAddr() + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var stats node.Stats
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		t.Fatal(err)
	}
	if stats.Requests != 2 || stats.Errors["bad request"] != 2 {
		t.Errorf("admin /stats: %d requests, errors %v; want 2 and 2 bad requests", stats.Requests, stats.Errors)
	}
	metrics, err := http.Get("http://" + n.AdminAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer metrics.Body.Close()
	text, _ := io.ReadAll(metrics.Body)
	for _, want := range []string{"hopbench_node_requests_total 2", `hopbench_node_errors_total{class="bad request"} 2`, `hopbench_node_phase_seconds{phase="decode",quantile="0.5"}`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("/metrics lacks %q:\n%s", want, text)
		}
	}
}

func (*caller) dial(t *testing.T, addr string) (transport.Client, error) {
	tr, _ := transport.Lookup("rest")
	cl, err := tr.Dial(context.Background(), addr, transport.Config{})
	if err == nil {
		t.Cleanup(func() { cl.Close() })
	}
	return cl, err
}

// A node at its in-flight limit refuses the next request as unavailable
// instead of queueing it. One request is held inside the node by a
// downstream server that answers only when released.
func TestInFlightLimitRefusesAsUnavailable(t *testing.T) {
	rest, _ := transport.Lookup("rest")
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	stall, err := rest.Listen(context.Background(), "127.0.0.1:0", transport.Config{}, transport.Handler{Bytes: func(ctx context.Context, req *transport.Request) ([]byte, error) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return codec.Compressed(req.Codec, req.Compression, codec.DefaultMaxBytes).Marshal(&pb.Ack{Model: req.Model, Count: 1})
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer stall.Close()
	st, _ := transport.ParseStack("rest+json")
	n, err := node.Start(context.Background(), node.Config{Stack: st, MaxInFlight: 1, Downstream: []string{stall.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := newCaller(t, "rest+json", n.Addr(), transport.Config{})
	held := make(chan error, 1)
	go func() {
		req := c.req
		req.Op, req.Model = transport.OpPost, "user"
		req.Body, _ = c.cc.Marshal(users(1, 1))
		_, err := c.client.Call(context.Background(), &req)
		held <- err
	}()
	<-entered
	req := c.req
	req.Op, req.Model, req.Count = transport.OpGet, "user", 1
	_, err = c.client.Call(context.Background(), &req)
	if transport.CodeOf(err) != transport.CodeUnavailable || !strings.Contains(err.Error(), "limit of 1 requests in flight") {
		t.Errorf("second request at the limit: %v (code %v), want unavailable naming the limit", err, transport.CodeOf(err))
	}
	close(release)
	if err := <-held; err != nil {
		t.Errorf("the held request failed: %v", err)
	}
	if got := n.Stats().Errors["unavailable"]; got != 1 {
		t.Errorf("%d unavailable errors counted, want 1", got)
	}
}

// A get whose reply would pass the node's body limit is refused before it
// is generated, on every stack: a billion users would take the node's
// memory, two million its 1 MiB limit.
func TestAGetTooLargeIsRefusedBeforeItIsMade(t *testing.T) {
	for _, stack := range []string{"rest", "grpc", "graphql"} {
		t.Run(stack, func(t *testing.T) {
			st, _ := transport.ParseStack(stack)
			cl := limitedNode(t, st, 0)
			c, _ := codec.Lookup(st.Codec)
			none, _ := codec.LookupCompression("none")
			for _, count := range []int{2_000_000, 1_000_000_000} {
				began := time.Now()
				_, err := cl.Call(context.Background(), &transport.Request{Op: transport.OpGet, Model: "user", Count: count, Codec: c, Compression: none})
				// GraphQL's query cost limit (a million items) refuses first
				// what it can.
				want := "over the node's limit of 1048576 bytes"
				if stack == "graphql" && count > graphql.MaxQueryItems {
					want = "exceeds the limit of 1000000"
				}
				if transport.CodeOf(err) != transport.CodeTooLarge || !strings.Contains(err.Error(), want) {
					t.Errorf("get user×%d: %v", count, err)
				}
				if took := time.Since(began); took > 2*time.Second {
					t.Errorf("get user×%d refused after %v: it was generated first", count, took)
				}
			}
		})
	}
}

// GraphQL decodes requests into v1's messages itself: a node of schema v2
// offers it no message-level handler, and it refuses to start, saying
// why; the same node serves on REST.
func TestANodeOfSchemaV2RefusesGraphQLAtStart(t *testing.T) {
	for _, c := range []struct {
		stack string
		ok    bool
	}{{"graphql", false}, {"rest", true}} {
		st, err := transport.ParseStack(c.stack)
		if err != nil {
			t.Fatal(err)
		}
		n, err := node.Start(context.Background(), node.Config{Stack: st, Schema: evolution.V2})
		if err == nil {
			n.Close()
		}
		if (err == nil) != c.ok || (!c.ok && !strings.Contains(err.Error(), "GraphQL decodes requests itself")) {
			t.Errorf("%s node of schema v2: %v; want it to start: %v", c.stack, err, c.ok)
		}
	}
	if _, err := node.Start(context.Background(), node.Config{Stack: transport.Stack{Transport: "rest", Codec: "json", Compression: "none"}, Schema: "v3"}); err == nil || !strings.Contains(err.Error(), `"v3": want v1 or v2`) {
		t.Errorf("schema v3: %v", err)
	}
}

// A node's /metrics lists its families before any request and before any
// error: the text format has no empty family, and the writer stopped at
// the first it refused (the errors family of a node that had none), so a
// healthy node's scrape ended after requests_total.
func TestAHealthyNodesMetricsListEveryFamily(t *testing.T) {
	st := transport.Stack{Transport: "rest", Codec: "proto", Compression: "none"}
	n, err := node.Start(context.Background(), node.Config{Stack: st, Admin: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	scrape := func() string {
		resp, err := http.Get("http://" + n.AdminAddr() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	families := []string{"hopbench_node_requests_total 0", `hopbench_node_errors_total{class="bad request"} 0`, "hopbench_node_cache_hits", "hopbench_node_heap_alloc_bytes", "hopbench_node_sys_bytes", "hopbench_node_goroutines"}
	fresh := scrape()
	for _, want := range families {
		if !strings.Contains(fresh, want) {
			t.Errorf("a node that has served nothing: /metrics lacks %q:\n%s", want, fresh)
		}
	}
	cl, err := (&caller{}).dial(t, n.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := codec.Lookup("proto")
	z, _ := codec.LookupCompression("none")
	if _, err := cl.Call(context.Background(), &transport.Request{Op: transport.OpGet, Model: "user", Count: 1, Codec: c, Compression: z}); err != nil {
		t.Fatal(err)
	}
	healthy := scrape()
	for _, want := range append(families[2:], "hopbench_node_requests_total 1", `hopbench_node_errors_total{class="internal"} 0`, `hopbench_node_phase_seconds_count{phase="total"}`) {
		if !strings.Contains(healthy, want) {
			t.Errorf("a node with one request and no error: /metrics lacks %q:\n%s", want, healthy)
		}
	}
}
