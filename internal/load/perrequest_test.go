package load_test

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all"
	"github.com/hopbench/hopbench/internal/wire"
)

// Per request, every call opens a connection of its own (over TLS too),
// where a pooled target opens one for the run; a stack that takes no
// per-request connections says why.
func TestPerRequestOpensAConnectionPerCall(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	bundle, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	const calls = 20
	for _, stack := range []string{"rest", "rest+proto", "grpc", "graphql"} {
		for _, tls := range []bool{false, true} {
			st, _ := transport.ParseStack(stack)
			ncfg := node.Config{Stack: st, Admin: ""}
			var ccfg transport.Config
			if tls {
				ncfg.Transport.ServerTLS, ccfg.ClientTLS = bundle.Server(false), bundle.Client(false)
			}
			n, err := node.Start(context.Background(), ncfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, per := range []bool{false, true} {
				counter := &wire.Counter{}
				ccfg.Dialer = &wire.Dialer{Counter: counter}
				tgt, err := load.DialTarget(context.Background(), load.TargetConfig{Stack: st, Addr: n.Addr(), Transport: ccfg,
					Op: transport.OpEcho, Model: "text", Count: 10, PerRequest: per})
				if err != nil {
					t.Fatal(err)
				}
				call := tgt.NewCall()
				for range calls {
					if err := call(context.Background()); err != nil {
						t.Fatalf("%s tls=%v per-request=%v: %v", stack, tls, per, err)
					}
				}
				tgt.Close()
				want := int64(1)
				if per {
					want = calls
				}
				if got := counter.Snapshot().Conns; got != want {
					t.Errorf("%s tls=%v per-request=%v: %d connections for %d calls, want %d", stack, tls, per, got, calls, want)
				}
			}
			n.Close()
		}
	}
	kafka, _ := transport.ParseStack("kafka")
	if _, err := load.DialTarget(context.Background(), load.TargetConfig{Stack: kafka, Addr: "kafka://127.0.0.1:1/x", Op: transport.OpEcho, Model: "text", Count: 1, PerRequest: true}); err == nil {
		t.Error("kafka took per-request connections")
	}
}
