package grpc_test

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/grpc"
)

// The node's calls are served by goroutines kept between calls, whose
// grown stacks serve the next call, not by a new goroutine for each call:
// 600 calls in turn run on at most the 256 kept goroutines.
func TestCallsRunOnKeptGoroutines(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var mu sync.Mutex
	ran := map[uint64]bool{}
	h := transport.Handler{Bytes: func(_ context.Context, req *transport.Request) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		ran[goroutineID(t)] = true
		return req.Body, nil
	}}
	echo := serveEcho(ctx, t, h)
	const calls = 600
	for i := range calls {
		if err := echo(ctx); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ran) > 256 {
		t.Errorf("%d calls ran on %d goroutines: a new one for each call, whose stack grows anew", calls, len(ran))
	}
}

// goroutineID is the calling goroutine's number, as its stack trace
// names it ("goroutine 42 [running]:").
func goroutineID(t *testing.T) uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := bytes.Fields(buf)
	id, err := strconv.ParseUint(string(f[1]), 10, 64)
	if err != nil {
		t.Errorf("no goroutine number in %q", buf)
	}
	return id
}

// No call waits for a worker: 300 calls in flight at once, more than the
// 256 kept goroutines, are all in the handler together before any returns.
func TestNoCallWaitsForAWorker(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const calls = 300
	var entered sync.WaitGroup
	entered.Add(calls)
	allIn := make(chan struct{})
	go func() { entered.Wait(); close(allIn) }()
	h := transport.Handler{Bytes: func(ctx context.Context, req *transport.Request) ([]byte, error) {
		entered.Done()
		select {
		case <-allIn:
			return req.Body, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	echo := serveEcho(ctx, t, h)
	callCtx, stop := context.WithTimeout(ctx, 20*time.Second)
	defer stop()
	errs := make(chan error, calls)
	for range calls {
		go func() {
			errs <- echo(callCtx)
		}()
	}
	for range calls {
		if err := <-errs; err != nil {
			t.Fatalf("a call of %d in flight at once: %v (calls waited for a worker)", calls, err)
		}
	}
}

// serveEcho serves h on a gRPC node and returns an echo call to it, both
// closed when the test ends.
func serveEcho(ctx context.Context, t *testing.T, h transport.Handler) func(context.Context) error {
	srv, err := grpc.Transport{}.Listen(ctx, "127.0.0.1:0", transport.Config{}, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := grpc.Transport{}.Dial(ctx, srv.Addr(), transport.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	proto, _ := codec.Lookup("proto")
	return func(ctx context.Context) error {
		req := &transport.Request{Op: transport.OpEcho, Model: "text", Body: []byte{0x0a, 0}, Codec: proto}
		_, err := client.Call(ctx, req)
		return err
	}
}
