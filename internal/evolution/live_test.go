package evolution_test

import (
	"context"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all"
)

// chain starts the nodes of path p on a stack, entry first, each of its
// own schema version, and returns a client of the entry node.
func chain(t *testing.T, st transport.Stack, p evolution.Path) transport.Client {
	t.Helper()
	var next []string
	for i := len(p) - 1; i >= 1; i-- {
		n, err := node.Start(context.Background(), node.Config{Stack: st, Downstream: next, Schema: p[i]})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		next = []string{n.Addr()}
	}
	tr, err := transport.Lookup(st.Transport)
	if err != nil {
		t.Fatal(err)
	}
	c, err := transport.Dial(context.Background(), tr, next[0], st.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Nodes of either version in a live chain do to a message what the
// in-process trial says they do: the same outcome for every change, over
// REST with JSON, gzipped JSON and Protobuf and over gRPC, both ways round.
func TestALiveMixedChainDoesWhatTheTrialSays(t *testing.T) {
	if testing.Short() {
		t.Skip("starts chains of nodes")
	}
	for _, stack := range []string{"rest", "rest+json+gzip", "rest+proto", "grpc"} {
		st, err := transport.ParseStack(stack)
		if err != nil {
			t.Fatal(err)
		}
		cc, _ := codec.Lookup(st.Codec)
		for _, path := range []string{"v2,v1,v2", "v1,v2,v1"} {
			p, _ := evolution.ParsePath(path)
			trials, err := evolution.Live(context.Background(), chain(t, st, p), st, evolution.BuiltIn, p, evolution.TrialCounts, payload.DefaultSeed, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if want := len(evolution.TrialCounts) * len(evolution.Changes); len(trials) != want {
				t.Fatalf("%s over %s: %d trials, want %d", stack, path, len(trials), want)
			}
			for _, live := range trials {
				ch, ok := evolution.LookupChange(live.Change)
				if !ok {
					t.Fatalf("no change %q", live.Change)
				}
				want, err := evolution.Run(cc, ch, p, live.Count, payload.DefaultSeed)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s %s×%d over %s: %s (others %s) %s", stack, ch.Name, live.Count, path, live.Outcome, live.Others, live.Detail)
				if live.Outcome != want.Outcome || live.Others != want.Others {
					t.Errorf("%s %s×%d over %s: live %s (others %s: %s), in process %s (others %s: %s)", stack, ch.Name, live.Count, path,
						live.Outcome, live.Others, live.Detail, want.Outcome, want.Others, want.Detail)
				}
			}
		}
	}
}
