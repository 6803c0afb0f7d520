package transporttest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
)

// Special feeds of the suite: text feeds whose count says what the
// service does (each message then carries one character). A count and not
// a model name, as the unary cases use, because stacks that frame a
// message by its model (grpc's Payload fields) frame real models only.
const (
	countFailAfter = 90_001 // sends 2 messages, then fails
	countHold      = 90_002 // sends message 0, then waits for the test's word
	countStall     = 90_003 // sends message 0, then waits for the caller to leave
)

// feedCases are the cases of a stack that carries feeds; a stack that
// does not is checked to refuse them by name.
func feedCases(name string) []testCase {
	if transport.FeedRefusal(name) != nil {
		return []testCase{{name: "FeedRefusedByName", run: testFeedRefused}}
	}
	return []testCase{
		{name: "FeedEveryModel", run: testFeedEveryModel},
		{name: "FeedEmptyAndSingle", run: testFeedEmptyAndSingle},
		{name: "FeedManyMessagesInOrder", run: testFeedMany},
		{name: "FeedArrivesAsSent", run: testFeedArrivesAsSent},
		{name: "FeedsInFlight", run: testFeedsInFlight},
		{name: "FeedFailsMidStream", run: testFeedFails},
		{name: "FeedDeadline", run: testFeedDeadline},
		{name: "FeedCallerLeaves", run: testFeedCallerLeaves},
		{name: "FeedOversizeMessageRefused", serverMaxBytes: 1 << 20, run: testFeedTooLarge},
		{name: "FeedWireBytesCounted", run: testFeedWire},
	}
}

// feeder is the suite's feed service: message i of a feed is the model's
// Count items with seed DefaultSeed+i, encoded as the request's codec.
type feeder struct {
	hold  chan struct{} // x-hold waits on it after message 0
	ended chan error    // every feed's return, for tests that wait on it
}

func newFeeder() *feeder {
	return &feeder{hold: make(chan struct{}, 1), ended: make(chan error, 64)}
}

func (f *feeder) feed(ctx context.Context, req *transport.Request, send func([]byte) error) error {
	err := f.serve(ctx, req, send)
	select {
	case f.ended <- err:
	default:
	}
	return err
}

func (f *feeder) serve(ctx context.Context, req *transport.Request, send func([]byte) error) error {
	m, err := payload.Lookup(req.Model)
	if err != nil {
		return &transport.Error{Code: transport.CodeNotFound, Msg: err.Error()}
	}
	count := req.Count
	if count >= countFailAfter && count <= countStall {
		count = 1
	}
	cc := codec.Compressed(req.Codec, req.Compression, codec.DefaultMaxBytes)
	for i := range req.Messages {
		if err := f.before(ctx, req.Count, i); err != nil {
			return err
		}
		msg, err := m.Message(count, payload.DefaultSeed+uint64(i))
		if err != nil {
			return &transport.Error{Code: transport.CodeBadRequest, Msg: err.Error()}
		}
		b, err := cc.Marshal(msg)
		if err != nil {
			return err
		}
		if err := send(b); err != nil {
			return err
		}
	}
	return nil
}

// before is what the special feeds do before message i.
func (f *feeder) before(ctx context.Context, count, i int) error {
	switch {
	case count == countFailAfter && i == 2:
		return transport.Errorf(transport.CodeInternal, "boom: the feed failed on purpose after 2 messages")
	case count == countStall && i == 1:
		<-ctx.Done()
		return transport.Errorf(transport.CodeDeadline, "stalled until the caller gave up")
	case count == countHold && i == 1:
		select {
		case <-f.hold:
		case <-time.After(5 * time.Second):
			return transport.Errorf(transport.CodeInternal, "message 0 was not received within 5 s")
		}
	}
	return ctx.Err()
}

// feed calls a feed of n messages of model×count; got are their bodies.
func (e *env) feed(ctx context.Context, model string, count, n int, each func(i int, b []byte) error) (got int, err error) {
	req := &transport.Request{Op: transport.OpFeed, Model: model, Count: count, Messages: n, Codec: e.codec, Compression: e.z}
	err = transport.CallFeed(ctx, e.client, e.name, req, func(b []byte) error {
		got++
		if each == nil {
			return nil
		}
		return each(got-1, b)
	})
	return got, err
}

// wantMessages checks a feed's message i is the model's, in order.
func (e *env) wantMessages(t *testing.T, m payload.Model, count int) func(int, []byte) error {
	return func(i int, b []byte) error {
		want, _ := m.Message(count, payload.DefaultSeed+uint64(i))
		if got := e.decodeModel(t, m, b); !proto.Equal(got, want) {
			t.Errorf("%s feed: message %d is not the model's message %d", m.Name, i, i)
		}
		return nil
	}
}

func testFeedRefused(t *testing.T, e *env) {
	err := transport.FeedRefusal(e.name)
	if err == nil || !strings.Contains(err.Error(), e.name) {
		t.Fatalf("FeedRefusal(%s) = %v, want a reason naming the stack", e.name, err)
	}
	if _, err := e.feed(context.Background(), "text", 1, 3, nil); err == nil {
		t.Fatalf("a feed on %s, which refuses feeds (%v), did not fail", e.name, transport.FeedRefusal(e.name))
	}
}

func testFeedEveryModel(t *testing.T, e *env) {
	for _, m := range payload.Models() {
		got, err := e.feed(context.Background(), m.Name, 1, 3, e.wantMessages(t, m, 1))
		if err != nil || got != 3 {
			t.Fatalf("%s feed:3 of 1 item: %d messages, %v", m.Name, got, err)
		}
	}
}

func testFeedEmptyAndSingle(t *testing.T, e *env) {
	for _, count := range []int{0, 1} {
		got, err := e.feed(context.Background(), "user", count, 1, e.wantMessages(t, mustModel("user"), count))
		if err != nil || got != 1 {
			t.Fatalf("user feed:1 of %d items: %d messages, %v", count, got, err)
		}
	}
}

func testFeedMany(t *testing.T, e *env) {
	got, err := e.feed(context.Background(), "text", 1, 2000, e.wantMessages(t, mustModel("text"), 1))
	if err != nil || got != 2000 {
		t.Fatalf("text feed:2000: %d messages, %v", got, err)
	}
}

// testFeedArrivesAsSent: message 0 reaches the caller while the server
// waits to send message 1, so no layer holds the feed back.
func testFeedArrivesAsSent(t *testing.T, e *env) {
	got, err := e.feed(context.Background(), "text", countHold, 3, func(i int, _ []byte) error {
		if i == 0 {
			e.feeds.hold <- struct{}{}
		}
		return nil
	})
	if err != nil || got != 3 {
		t.Fatalf("feed:3 with the server holding message 1 until message 0 arrived: %d messages, %v", got, err)
	}
}

func testFeedsInFlight(t *testing.T, e *env) {
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := e.feed(context.Background(), "payment", 1, 20, e.wantMessages(t, mustModel("payment"), 1))
			if err == nil && got != 20 {
				err = errors.New("short feed")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("32 feeds at once: %v", err)
		}
	}
}

func testFeedFails(t *testing.T, e *env) {
	got, err := e.feed(context.Background(), "text", countFailAfter, 5, nil)
	if got != 2 || transport.CodeOf(err) != transport.CodeInternal || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("a feed failing after 2 messages: %d messages, %v (code %v); want 2 and an internal error carrying the server's message", got, err, transport.CodeOf(err))
	}
}

func testFeedDeadline(t *testing.T, e *env) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	got, err := e.feed(ctx, "text", countStall, 3, nil)
	if transport.CodeOf(err) != transport.CodeDeadline || got != 1 {
		t.Fatalf("a feed stalled after message 0: %d messages, %v (code %v); want 1 and a deadline error", got, err, transport.CodeOf(err))
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("the call returned %v after its 300ms deadline", waited)
	}
	e.serverEnds(t)
}

// testFeedCallerLeaves: a caller that stops reading ends the call with
// its own error, and the server's feed ends too.
func testFeedCallerLeaves(t *testing.T, e *env) {
	leave := errors.New("the caller has read enough")
	got, err := e.feed(context.Background(), "text", 100, 10_000, func(i int, _ []byte) error {
		if i == 1 {
			return leave
		}
		return nil
	})
	if !errors.Is(err, leave) || got != 2 {
		t.Fatalf("a caller leaving at message 1: %d messages, %v; want 2 and its own error", got, err)
	}
	e.serverEnds(t)
}

// serverEnds waits for the server's feed to return.
func (e *env) serverEnds(t *testing.T) {
	t.Helper()
	select {
	case <-e.feeds.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the server's feed went on 5 s after its caller left")
	}
}

func testFeedTooLarge(t *testing.T, e *env) {
	_, err := e.feed(context.Background(), "blob", 2<<20, 2, nil)
	if transport.CodeOf(err) != transport.CodeTooLarge || !strings.Contains(err.Error(), "1048576") {
		t.Fatalf("a feed whose message is over the server's 1 MiB limit: %v (code %v), want too large naming the limit", err, transport.CodeOf(err))
	}
}

func testFeedWire(t *testing.T, e *env) {
	before := e.wire.Snapshot()
	size := 0
	got, err := e.feed(context.Background(), "text", 100, 10, func(_ int, b []byte) error { size += len(b); return nil })
	if err != nil || got != 10 {
		t.Fatalf("text feed:10: %d messages, %v", got, err)
	}
	if read := e.wire.Snapshot().Sub(before).Read; read < int64(size) {
		t.Fatalf("the dialer counted %d bytes read for a feed of %d bytes of messages", read, size)
	}
}
