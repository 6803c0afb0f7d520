package redis_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

// A backlog is bounded by maxlen (about: trimming drops whole nodes of up
// to 100 entries), the oldest requests dropped; served requests and read
// replies are deleted; and once its service and clients are closed,
// nothing of a stack is left in Redis.
func TestStreamsStayBounded(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tr, err := transport.Lookup("redis")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := transport.Config{Codec: "proto", Options: map[string]string{"maxlen": "10", "serve": "serial"}}
	release := make(chan struct{})
	h := func(ctx context.Context, req *transport.Request) ([]byte, error) {
		select { // serial: the service reads nothing more meanwhile
		case <-release:
		case <-ctx.Done():
		}
		return req.Body, nil
	}
	srv, err := tr.Listen(ctx, "redis://"+brokertest.Addrs["redis"]+"/", cfg, transport.Handler{Bytes: h})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cl, err := tr.Dial(ctx, srv.Addr(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	name := srv.Addr()[strings.LastIndexByte(srv.Addr(), '/')+1:]
	rdb := goredis.NewClient(&goredis.Options{Addr: brokertest.Addrs["redis"]})
	defer rdb.Close()

	pb, _ := codec.Lookup("proto")
	none, _ := codec.LookupCompression("none")
	var wg sync.WaitGroup
	for range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			cl.Call(cctx, &transport.Request{Op: transport.OpEcho, Model: "blob", Codec: pb, Compression: none, Body: []byte{10, 1, 'x'}})
		}()
	}
	deadline := time.Now().Add(2 * time.Second)
	var most int64
	for time.Now().Before(deadline) {
		n, err := rdb.XLen(ctx, name).Result()
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, n)
		time.Sleep(20 * time.Millisecond)
	}
	if most > 10+100 || most == 0 {
		t.Errorf("the request stream held up to %d entries, want 1 to 110 (maxlen 10, approximately)", most)
	}
	t.Logf("the request stream held up to %d entries (maxlen 10) with 300 callers and its service stalled", most)
	close(release)
	wg.Wait()
	if n, err := rdb.XLen(ctx, name).Result(); err != nil || n != 0 {
		t.Errorf("%d requests left in the stream after the calls (%v), want none: served ones are deleted", n, err)
	}
	cl.Close()
	srv.Close()
	if keys, err := rdb.Keys(ctx, name+"*").Result(); err != nil || len(keys) != 0 {
		t.Errorf("left in Redis after the service and client closed: %q (%v)", keys, err)
	}
}
