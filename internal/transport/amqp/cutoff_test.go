package amqp_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

// A run that is stopped cancels its calls and closes its client at once.
// Every call that cut off returns its context's error, not the closed
// connection's, so the load engine counts none of them as the service's
// failure: the calls in flight, whichever of the two they saw first, and
// a call made once the client had seen its connection close. A call whose
// context is live still fails for the closed connection.
func TestACallCutOffReturnsItsContextsError(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const calls = 8
	tr, err := transport.Lookup("amqp")
	if err != nil {
		t.Fatal(err)
	}
	cfg := transport.Config{Codec: "proto"}
	received := make(chan struct{}, calls)
	h := transport.Handler{Bytes: func(ctx context.Context, _ *transport.Request) ([]byte, error) {
		received <- struct{}{}
		<-ctx.Done() // no reply until the server closes
		return nil, ctx.Err()
	}}
	srv, err := tr.Listen(context.Background(), "amqp://"+brokertest.Addrs["rabbitmq"]+"/", cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cl, err := tr.Dial(context.Background(), srv.Addr(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	proto, _ := codec.Lookup("proto")
	none, _ := codec.LookupCompression("none")
	req := &transport.Request{Op: transport.OpGet, Model: "user", Count: 1, Codec: proto, Compression: none}
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, calls)
	for range calls {
		go func() {
			_, err := cl.Call(ctx, req)
			errs <- err
		}()
	}
	for range calls {
		<-received // every call is in flight
	}
	cancel()
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range calls {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("call %d in flight: %v (class %v), want its context's error", i, err, transport.CodeOf(err))
		}
	}
	if _, err := cl.Call(ctx, req); !errors.Is(err, context.Canceled) {
		t.Errorf("a call cancelled on the closed client: %v (class %v), want its context's error", err, transport.CodeOf(err))
	}
	if _, err := cl.Call(context.Background(), req); errors.Is(err, context.Canceled) || transport.CodeOf(err) != transport.CodeUnavailable {
		t.Errorf("a live call on the closed client: %v (class %v), want unavailable", err, transport.CodeOf(err))
	}
}
