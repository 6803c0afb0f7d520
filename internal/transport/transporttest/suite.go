// Package transporttest is the conformance suite every stack passes, the
// way database/sql drivers share tests: adding a stack means registering it
// and calling Run for its variants.
package transporttest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
	"github.com/hopbench/hopbench/internal/wire"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// Special models the suite's handler understands, to provoke failures.
const (
	modelStall = "x-stall" // blocks until the call's context ends
	modelFail  = "x-fail"  // fails with an internal error
)

// Emulated is the network every stack's conformance runs under once: a
// millisecond each way with jitter, and 100 Mbit/s, shaped in process.
var Emulated = network.Profile{Delay: time.Millisecond, Jitter: 200 * time.Microsecond, Bandwidth: 100_000_000}

// Variant is one configuration of a stack to test.
type Variant struct {
	Name      string
	Transport string
	Config    transport.Config
	// Large runs the 64 MiB case; slow under -race, so one variant of each
	// path carries it (a protocol, an HTTP version, a codec where its
	// encoding of the body differs), not its TLS twin: the limits it
	// tests are the transport's own, the same under TLS.
	Large bool
	// Listen is the server's address (default 127.0.0.1:0); broker stacks
	// give their broker's URL with no name, so each server gets its own.
	Listen string
	// Network, if set, is emulated on the client's connections and the
	// server's own (a broker stack's server dials its broker).
	Network network.Profile
}

// Run runs every case against v.
func Run(t *testing.T, v Variant) {
	t.Run(v.Name, func(t *testing.T) {
		tr, err := transport.Lookup(v.Transport)
		if err != nil {
			t.Fatal(err)
		}
		t.Run("UnknownOptionRefused", func(t *testing.T) { testUnknownOption(t, tr, cmp.Or(v.Listen, "127.0.0.1:0"), v.Config) })
		useOrders(t) // before a server starts: gRPC serves the services of the messages used
		for _, c := range append(cases, feedCases(v.Transport)...) {
			if c.large && !v.Large {
				continue
			}
			t.Run(c.name, func(t *testing.T) {
				// Deferred calls run last first: close, then look for leaks.
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				e := newEnv(t, tr, cmp.Or(v.Listen, "127.0.0.1:0"), v.Config, v.Network, c.serverMaxBytes)
				defer e.close()
				c.run(t, e)
			})
		}
	})
}

type testCase struct {
	name           string
	large          bool
	serverMaxBytes int
	run            func(*testing.T, *env)
}

var cases = []testCase{
	{name: "RoundTripEveryModel", run: testRoundTrip},
	{name: "RoundTripAUsersMessage", run: testUsersMessage},
	{name: "EmptyPayloads", run: testEmpty},
	{name: "ManyCallsInFlight", run: testInFlight},
	{name: "OneBodySharedByCallsInFlight", run: testSharedBody},
	{name: "AnsweredWithinItsDeadline", run: testAnsweredWithinDeadline},
	{name: "DeadlineExceeded", run: testDeadline},
	{name: "ServerErrorArrivesAsError", run: testServerError},
	{name: "OversizeRefusedNamingTheLimit", serverMaxBytes: 1 << 20, run: testTooLarge},
	{name: "MalformedRefusedAndServerKeepsServing", run: testMalformed},
	{name: "Payload64MiB", large: true, run: testLarge},
	{name: "WireBytesCountedThroughTheDialer", run: testWireCounted},
}

// env is one server and one client of the stack under test; the client
// dials through wire, a counting dialer, as every measured client does.
type env struct {
	name   string // the transport's
	server transport.Server
	client transport.Client
	codec  codec.Codec
	z      codec.Compression
	wire   *wire.Counter
	feeds  *feeder
}

func (e *env) close() {
	e.client.Close()
	e.server.Close()
}

func newEnv(t *testing.T, tr transport.Transport, listen string, cfg transport.Config, net network.Profile, serverMaxBytes int) *env {
	t.Helper()
	ctx := context.Background()
	scfg := cfg
	if serverMaxBytes > 0 {
		scfg.MaxBytes = serverMaxBytes
	}
	if !net.IsLoopback() {
		scfg.Dialer = &wire.Dialer{Counter: &wire.Counter{}, Network: net}
	}
	feeds := newFeeder()
	srv, err := transport.Listen(ctx, tr, listen, scfg, transport.Handler{Bytes: handler, Message: messageHandler, Feed: feeds.feed})
	if err != nil {
		t.Fatal(err)
	}
	counter := &wire.Counter{}
	ccfg := cfg
	ccfg.Dialer = &wire.Dialer{Counter: counter, Network: net}
	cl, err := transport.Dial(ctx, tr, srv.Addr(), ccfg)
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	e := &env{server: srv, client: cl, wire: counter, name: tr.Name(), feeds: feeds}
	if e.codec, e.z, err = transport.BodyCodec(tr, transport.Stack{Transport: tr.Name(), Codec: cmp.Or(cfg.Codec, tr.Caps().Codecs[0]), Compression: cfg.Compression}); err != nil {
		t.Fatal(err)
	}
	return e
}

// messageHandler is a minimal service; the node implements the real one.
func messageHandler(ctx context.Context, req *transport.MessageRequest) (proto.Message, error) {
	switch req.Model {
	case modelStall:
		<-ctx.Done()
		return nil, transport.Errorf(transport.CodeDeadline, "stalled until the caller gave up")
	case modelFail:
		return nil, transport.Errorf(transport.CodeInternal, "boom: the service failed on purpose")
	}
	m, err := payload.Lookup(req.Model)
	if err != nil {
		return nil, &transport.Error{Code: transport.CodeNotFound, Msg: err.Error()}
	}
	switch req.Op {
	case transport.OpGet:
		msg, err := m.Message(req.Count, payload.DefaultSeed)
		if err != nil {
			return nil, &transport.Error{Code: transport.CodeBadRequest, Msg: err.Error()}
		}
		return msg, nil
	case transport.OpPost:
		return &pb.Ack{Model: req.Model, Count: int64(m.Len(req.Body))}, nil
	case transport.OpEcho:
		return req.Body, nil
	}
	return nil, transport.Errorf(transport.CodeBadRequest, "unknown operation %q", req.Op)
}

// handler is messageHandler for transports that deliver encoded bodies.
func handler(ctx context.Context, req *transport.Request) ([]byte, error) {
	mreq := &transport.MessageRequest{Op: req.Op, Model: req.Model, Count: req.Count}
	cc := codec.Compressed(req.Codec, req.Compression, codec.DefaultMaxBytes)
	if req.Op != transport.OpGet {
		m, err := payload.Lookup(req.Model)
		if err != nil {
			return nil, &transport.Error{Code: transport.CodeNotFound, Msg: err.Error()}
		}
		mreq.Body = m.New()
		if err := cc.Unmarshal(req.Body, mreq.Body); err != nil {
			return nil, transport.Errorf(transport.CodeBadRequest, "decoding %s %s body: %w", req.Model, cc.Name(), err)
		}
	}
	reply, err := messageHandler(ctx, mreq)
	if err != nil {
		return nil, err
	}
	if req.Op == transport.OpEcho {
		return req.Body, nil // already the encoding of the reply; saves re-encoding 64 MiB
	}
	return cc.Marshal(reply)
}

func (e *env) call(ctx context.Context, op transport.Op, model string, count int, body proto.Message) ([]byte, error) {
	req := &transport.Request{Op: op, Model: model, Count: count, Codec: e.codec, Compression: e.z}
	if body != nil {
		b, err := codec.Compressed(e.codec, e.z, codec.DefaultMaxBytes).Marshal(body)
		if err != nil {
			return nil, err
		}
		req.Body = b
	}
	return e.client.Call(ctx, req)
}

func (e *env) decode(t *testing.T, b []byte, into proto.Message) {
	t.Helper()
	if err := codec.Compressed(e.codec, e.z, codec.DefaultMaxBytes).Unmarshal(b, into); err != nil {
		t.Fatalf("decoding the reply: %v", err)
	}
}

func (e *env) decodeModel(t *testing.T, m payload.Model, b []byte) proto.Message {
	t.Helper()
	msg := m.New()
	e.decode(t, b, msg)
	return msg
}

// roundTrip checks all three operations on model x count.
func (e *env) roundTrip(t *testing.T, m payload.Model, count int) {
	t.Helper()
	ctx := context.Background()
	want, _ := m.Message(count, payload.DefaultSeed)
	got, err := e.call(ctx, transport.OpGet, m.Name, count, nil)
	if err != nil {
		t.Fatalf("%s get %d: %v", m.Name, count, err)
	}
	if msg := e.decodeModel(t, m, got); !proto.Equal(msg, want) {
		t.Fatalf("%s get %d: the reply is not the model's %d items", m.Name, count, count)
	}
	got, err = e.call(ctx, transport.OpPost, m.Name, 0, want)
	if err != nil {
		t.Fatalf("%s post %d: %v", m.Name, count, err)
	}
	var ack pb.Ack
	e.decode(t, got, &ack)
	if ack.Count != int64(count) || ack.Model != m.Name {
		t.Fatalf("%s post %d: ack %v", m.Name, count, &ack)
	}
	got, err = e.call(ctx, transport.OpEcho, m.Name, 0, want)
	if err != nil {
		t.Fatalf("%s echo %d: %v", m.Name, count, err)
	}
	if msg := e.decodeModel(t, m, got); !proto.Equal(msg, want) {
		t.Fatalf("%s echo %d: the reply differs from the request", m.Name, count)
	}
}

func testRoundTrip(t *testing.T, e *env) {
	for _, m := range payload.Models() {
		e.roundTrip(t, m, min(m.Counts[0], 2000))
	}
}

// ordersModel is examples/proto's shop.Order, a user's message with every
// kind of field (internal/userschema).
const ordersModel = "shop.Order"

var orders struct {
	once sync.Once
	err  error
}

// useOrders registers ordersModel in this process, once.
func useOrders(t *testing.T) {
	orders.once.Do(func() {
		root, err := repoRoot()
		if err != nil {
			orders.err = err
			return
		}
		dir := filepath.Join(root, "examples", "proto")
		_, orders.err = userschema.Use(context.Background(), userschema.Source{
			Files: []string{filepath.Join(dir, "shop", "orders.proto")}, ImportPaths: []string{dir}, Message: ordersModel,
		})
	})
	if orders.err != nil {
		t.Fatal(orders.err)
	}
}

// repoRoot is the directory of go.mod above this one.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	for err == nil {
		if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr == nil {
			return dir, nil
		}
		if parent := filepath.Dir(dir); parent != dir {
			dir = parent
			continue
		}
		err = errors.New("no go.mod above the working directory")
	}
	return "", err
}

// testUsersMessage round-trips a user's message on every stack, in every
// codec but json-fast, which needs Go structs.
func testUsersMessage(t *testing.T, e *env) {
	m := mustModel(ordersModel)
	if err := codecbench.Carries(e.codec.Name(), m); err != nil {
		t.Skip(err)
	}
	e.roundTrip(t, m, 7)
	e.roundTrip(t, m, 0)
}

// testSharedBody sends one encoded body from many calls at once, echoes
// and posts, as a run's workers send the load's pre-encoded request: a
// stack that hands the caller's bytes to a library's buffer pool
// (connect-go pools what a codec's Marshal returns, and reads replies
// into what it pooled) corrupts later calls' bodies.
func testSharedBody(t *testing.T, e *env) {
	models := []payload.Model{mustModel("payment")}
	if codecbench.Carries(e.codec.Name(), mustModel(ordersModel)) == nil {
		models = append(models, mustModel(ordersModel))
	}
	for _, m := range models {
		want, _ := m.Message(5, payload.DefaultSeed)
		body, err := codec.Compressed(e.codec, e.z, codec.DefaultMaxBytes).Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		kept := bytes.Clone(body)
		const calls, each = 8, 40
		var wg sync.WaitGroup
		errs := make(chan error, calls)
		for range calls {
			wg.Go(func() {
				for i := range each {
					op := []transport.Op{transport.OpEcho, transport.OpPost}[i%2]
					req := &transport.Request{Op: op, Model: m.Name, Body: body, Codec: e.codec, Compression: e.z}
					got, err := e.client.Call(context.Background(), req)
					if err == nil && op == transport.OpEcho && !proto.Equal(decodeAs(e, m, got), want) {
						err = errors.New("the echo is not the request")
					}
					if err != nil {
						errs <- fmt.Errorf("%s: %w", m.Name, err)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if !bytes.Equal(body, kept) {
			t.Fatalf("%s: the caller's body was written to", m.Name)
		}
	}
}

// decodeAs decodes a reply of m, nil when it does not decode.
func decodeAs(e *env, m payload.Model, b []byte) proto.Message {
	msg := m.New()
	if codec.Compressed(e.codec, e.z, codec.DefaultMaxBytes).Unmarshal(b, msg) != nil {
		return nil
	}
	return msg
}

func testEmpty(t *testing.T, e *env) {
	for _, name := range []string{"user", "text", "ints", "blob"} {
		m, _ := payload.Lookup(name)
		e.roundTrip(t, m, 0)
	}
}

func testInFlight(t *testing.T, e *env) {
	const calls = 96
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := &pb.Text{Text: "call " + strconv.Itoa(i) + strings.Repeat(".", i*37)}
			got, err := e.call(context.Background(), transport.OpEcho, "text", 0, want)
			if err != nil {
				errs <- fmt.Errorf("call %d: %w", i, err)
				return
			}
			var msg pb.Text
			if err := codec.Compressed(e.codec, e.z, codec.DefaultMaxBytes).Unmarshal(got, &msg); err != nil || msg.Text != want.Text {
				errs <- fmt.Errorf("call %d: got another call's reply or garbage (%v)", i, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A call whose context has a deadline is answered like any other: a
// server that ties its reply to the call's context (a broker stack's
// asynchronous publish) must not drop the reply as the handler returns.
func testAnsweredWithinDeadline(t *testing.T, e *env) {
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		want := &pb.Text{Text: "within a deadline " + strconv.Itoa(i)}
		got, err := e.call(ctx, transport.OpEcho, "text", 0, want)
		cancel()
		if err != nil {
			t.Fatalf("call %d with 30s to go: %v", i, err)
		}
		var msg pb.Text
		e.decode(t, got, &msg)
		if msg.Text != want.Text {
			t.Fatalf("call %d: got %q, want %q", i, msg.Text, want.Text)
		}
	}
}

func testDeadline(t *testing.T, e *env) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.call(ctx, transport.OpGet, modelStall, 1, nil)
	if code := transport.CodeOf(err); code != transport.CodeDeadline {
		t.Fatalf("got %v (code %v), want a deadline error", err, code)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("the call returned %v after its 200ms deadline", waited)
	}
}

func testServerError(t *testing.T, e *env) {
	_, err := e.call(context.Background(), transport.OpGet, modelFail, 1, nil)
	if transport.CodeOf(err) != transport.CodeInternal || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("got %v, want an internal error carrying the server's message", err)
	}
	_, err = e.call(context.Background(), transport.OpGet, "no-such-model", 1, nil)
	if transport.CodeOf(err) != transport.CodeNotFound || !strings.Contains(err.Error(), "no-such-model") {
		t.Fatalf("got %v, want not found naming the model", err)
	}
}

func testTooLarge(t *testing.T, e *env) {
	big := &pb.Blob{Content: make([]byte, 2<<20)} // zeros: compressed or not, the limit is on the body as sent
	_, err := e.call(context.Background(), transport.OpEcho, "blob", 0, big)
	if e.z.Name() != "none" && err == nil {
		t.Skip("compressed below the limit: the decompression limit is tested in the codec package")
	}
	if transport.CodeOf(err) != transport.CodeTooLarge || !strings.Contains(err.Error(), strconv.Itoa(1<<20)) {
		t.Fatalf("got %v (code %v), want too large naming the limit %d", err, transport.CodeOf(err), 1<<20)
	}
	e.roundTrip(t, mustModel("recipe"), 1) // and the server still serves
}

func testMalformed(t *testing.T, e *env) {
	req := &transport.Request{Op: transport.OpPost, Model: "payment", Codec: e.codec, Compression: e.z,
		Body: []byte("\xff\x00not a payment\x01\x02\x03")}
	_, err := e.client.Call(context.Background(), req)
	if transport.CodeOf(err) != transport.CodeBadRequest || err.Error() == "" {
		t.Fatalf("got %v (code %v), want a bad request with a message", err, transport.CodeOf(err))
	}
	e.roundTrip(t, mustModel("payment"), 3)
}

func testLarge(t *testing.T, e *env) {
	// A body of 64 MiB less room for the envelope a stack adds.
	n := codec.DefaultMaxBytes - 64<<10
	want := &pb.Text{Text: strings.Repeat("x", n)}
	got, err := e.call(context.Background(), transport.OpEcho, "text", 0, want)
	if err != nil {
		t.Fatal(err)
	}
	var msg pb.Text
	e.decode(t, got, &msg)
	if len(msg.Text) != n {
		t.Fatalf("echo of %d characters came back with %d", n, len(msg.Text))
	}
}

// testUnknownOption: every stack refuses an option it does not have, by
// its name, in Listen and in Dial, before connecting to anything.
func testUnknownOption(t *testing.T, tr transport.Transport, listen string, cfg transport.Config) {
	cfg.Options = map[string]string{"no-such-option": "1"}
	if _, err := transport.Listen(context.Background(), tr, listen, cfg, transport.Handler{Bytes: handler}); err == nil || !strings.Contains(err.Error(), "no-such-option") {
		t.Errorf("Listen with an unknown option: %v, want a refusal naming it", err)
	}
	if _, err := transport.Dial(context.Background(), tr, listen, cfg); err == nil || !strings.Contains(err.Error(), "no-such-option") {
		t.Errorf("Dial with an unknown option: %v, want a refusal naming it", err)
	}
}

// testWireCounted: the client's bytes go through the dialer it was given,
// which every wire-byte figure depends on. Random bytes do not compress,
// so both directions carry at least the body.
func testWireCounted(t *testing.T, e *env) {
	body := make([]byte, 64<<10)
	rand.Read(body)
	before := e.wire.Snapshot()
	if _, err := e.call(context.Background(), transport.OpEcho, "blob", 0, &pb.Blob{Content: body}); err != nil {
		t.Fatal(err)
	}
	got := e.wire.Snapshot().Sub(before)
	if got.Written < int64(len(body)) || got.Read < int64(len(body)) {
		t.Fatalf("the dialer counted %d bytes written and %d read for a %d-byte echo: the stack does not dial through cfg.Dialer", got.Written, got.Read, len(body))
	}
}

func mustModel(name string) payload.Model {
	m, err := payload.Lookup(name)
	if err != nil {
		panic(err)
	}
	return m
}
