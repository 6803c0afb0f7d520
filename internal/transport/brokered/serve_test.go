package brokered

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

// A request carries its caller's deadline: the server works under it, and
// a request found past it (it waited in a queue while nobody served) gets
// neither work nor reply.
func TestServeKeepsTheCallersDeadline(t *testing.T) {
	json, _ := codec.Lookup("json")
	none, _ := codec.LookupCompression("none")
	req := &transport.Request{Op: transport.OpEcho, Model: "text", Body: []byte(`{"text":"x"}`), Codec: json, Compression: none}
	deadline := time.Now().Add(time.Minute).Truncate(time.Microsecond)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	m := RequestMeta(ctx, req)
	if m[HeaderDeadline] != strconv.FormatInt(deadline.UnixNano(), 10) {
		t.Fatalf("request metadata %v: want the deadline %v in %s", m, deadline, HeaderDeadline)
	}
	var worked, replied int
	var workedUntil time.Time
	h := transport.Handler{Bytes: func(ctx context.Context, req *transport.Request) ([]byte, error) {
		worked++
		workedUntil, _ = ctx.Deadline()
		return req.Body, nil
	}}
	send := func(_ context.Context, m Meta, body []byte) {
		if m[HeaderError] != "" || string(body) != `{"text":"x"}` {
			t.Errorf("reply %v %q", m, body)
		}
		replied++
	}
	Serve(context.Background(), h, m, req.Body, 1<<20, send)
	if worked != 1 || replied != 1 || !workedUntil.Equal(deadline) {
		t.Errorf("in time: worked %d times until %v, replied %d; want once until %v, one reply", worked, workedUntil, replied, deadline)
	}
	m[HeaderDeadline] = strconv.FormatInt(time.Now().Add(-time.Millisecond).UnixNano(), 10)
	Serve(context.Background(), h, m, req.Body, 1<<20, send)
	if worked != 1 || replied != 1 {
		t.Errorf("past its deadline: worked %d times, replied %d; want no more work and no reply", worked, replied)
	}
	delete(m, HeaderDeadline)
	Serve(context.Background(), h, m, req.Body, 1<<20, send)
	if worked != 2 || replied != 2 || !workedUntil.IsZero() {
		t.Errorf("without a deadline: worked %d times (until %v), replied %d; want served with no deadline", worked, workedUntil, replied)
	}
}
