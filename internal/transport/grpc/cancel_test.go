package grpc_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

// A call its caller cancels returns an error that is context.Canceled, as
// the HTTP and broker stacks' do, so the load engine tells it from a
// failure of the service: grpc-go's Canceled status did not wrap it.
func TestACancelledCallIsItsContexts(t *testing.T) {
	tr, err := transport.Lookup("grpc")
	if err != nil {
		t.Fatal(err)
	}
	received := make(chan struct{}, 1)
	h := transport.Handler{Bytes: func(ctx context.Context, _ *transport.Request) ([]byte, error) {
		received <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{}, h)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cl, err := tr.Dial(context.Background(), srv.Addr(), transport.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	proto, _ := codec.Lookup("proto")
	none, _ := codec.LookupCompression("none")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-received
		cancel()
	}()
	_, err = cl.Call(ctx, &transport.Request{Op: transport.OpGet, Model: "user", Count: 1, Codec: proto, Compression: none})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call: %v (class %v), want its context's error", err, transport.CodeOf(err))
	}
}
