package node_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/connect"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// feed calls a feed of n messages of user×count on c and checks each is
// the leaf's message i, in order.
func (c *caller) feed(t *testing.T, n, count int, each func(i int)) error {
	t.Helper()
	req := c.req
	req.Op, req.Model, req.Count, req.Messages = transport.OpFeed, "user", count, n
	got := 0
	err := transport.CallFeed(context.Background(), c.client, "test", &req, func(b []byte) error {
		var msg pb.UserList
		if err := c.cc.Unmarshal(b, &msg); err != nil {
			return err
		}
		want, _ := payload.Generate("user", count, payload.DefaultSeed+uint64(got))
		if !proto.Equal(&msg, want) {
			t.Errorf("message %d is not the leaf's message %d", got, got)
		}
		if each != nil {
			each(got)
		}
		got++
		return nil
	})
	if err == nil && got != n {
		t.Errorf("the feed carried %d messages, want %d", got, n)
	}
	return err
}

// Each hop of a chain decodes and re-encodes every message of a feed and
// passes it on; the leaf generates message i with seed Seed+i.
func TestFeedsThroughAChain(t *testing.T) {
	noLeaks(t)
	for _, stack := range []string{"grpc", "connect+gzip", "connect+json"} {
		t.Run(stack, func(t *testing.T) {
			nodes := startTopology(t, stack, "chain:3", transport.Config{})
			c := newCaller(t, stack, nodes[0].Addr(), transport.Config{})
			if err := c.feed(t, 50, 3, nil); err != nil {
				t.Fatalf("feed:50 of 3 users through chain:3: %v", err)
			}
			for i, n := range nodes {
				st := n.Stats()
				if st.Requests != 1 || st.Phases["total"].Count != 1 || len(st.Errors) != 0 {
					t.Errorf("node %d: %d requests, %d timed, errors %v; want 1, 1, none", i, st.Requests, st.Phases["total"].Count, st.Errors)
				}
			}
		})
	}
}

// A relay passes each message on as it arrives: the caller has message 0
// while the service behind the relay still waits to send message 1.
func TestARelayDoesNotHoldAFeed(t *testing.T) {
	noLeaks(t)
	got0 := make(chan struct{})
	leaf := transport.Handler{Feed: func(ctx context.Context, req *transport.Request, send func([]byte) error) error {
		cc := codec.Compressed(req.Codec, req.Compression, codec.DefaultMaxBytes)
		for i := range req.Messages {
			if i == 1 {
				select {
				case <-got0:
				case <-time.After(5 * time.Second):
					return transport.Errorf(transport.CodeInternal, "the caller did not have message 0 within 5 s: the relay holds the feed")
				}
			}
			msg, _ := payload.Generate("user", req.Count, payload.DefaultSeed+uint64(i))
			b, err := cc.Marshal(msg)
			if err == nil {
				err = send(b)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}}
	tr, _ := transport.Lookup("grpc")
	srv, err := transport.Listen(context.Background(), tr, "127.0.0.1:0", transport.Config{}, leaf)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	st, _ := transport.ParseStack("grpc")
	relay, err := node.Start(context.Background(), node.Config{Stack: st, Downstream: []string{srv.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer relay.Close()
	c := newCaller(t, "grpc", relay.Addr(), transport.Config{})
	if err := c.feed(t, 3, 2, func(i int) {
		if i == 0 {
			close(got0)
		}
	}); err != nil {
		t.Fatal(err)
	}
}

// The cache replays a leaf's feed.
func TestTheCacheReplaysAFeed(t *testing.T) {
	noLeaks(t)
	st, _ := transport.ParseStack("grpc")
	n, err := node.Start(context.Background(), node.Config{Stack: st, Cache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := newCaller(t, "grpc", n.Addr(), transport.Config{})
	for range 2 {
		if err := c.feed(t, 20, 2, nil); err != nil {
			t.Fatal(err)
		}
	}
	if s := n.Stats(); s.CacheHits != 1 || s.Requests != 2 {
		t.Errorf("two identical feeds: %d requests, %d cache hits; want 2 and 1", s.Requests, s.CacheHits)
	}
}

// A caller that leaves mid-feed ends the node's feed, and is no error of
// the node's: with one request in flight allowed, the next call is served
// once the feed has let go of its slot.
func TestACallerThatLeavesAFeedIsNoNodeError(t *testing.T) {
	noLeaks(t)
	st, _ := transport.ParseStack("grpc")
	n, err := node.Start(context.Background(), node.Config{Stack: st, MaxInFlight: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := newCaller(t, "grpc", n.Addr(), transport.Config{})
	leave := errors.New("enough")
	req := c.req
	req.Op, req.Model, req.Count, req.Messages = transport.OpFeed, "user", 1000, 10_000
	err = transport.CallFeed(context.Background(), c.client, "grpc", &req, func([]byte) error { return leave })
	if !errors.Is(err, leave) {
		t.Fatalf("a caller leaving at message 0: %v", err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := c.feed(t, 1, 1, nil)
		if err == nil {
			break
		}
		if transport.CodeOf(err) != transport.CodeUnavailable || time.Now().After(deadline) {
			t.Fatalf("after the caller left, the node's feed still holds its slot: %v", err)
		}
	}
	for code := range n.Stats().Errors {
		if code != transport.CodeUnavailable.String() {
			t.Errorf("a caller that left: the node counted errors %v", n.Stats().Errors)
		}
	}
}

// noLeaks checks, after every cleanup of t (its callers' clients), that
// no goroutine t started is left.
func noLeaks(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
}
