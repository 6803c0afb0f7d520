package load

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
	"google.golang.org/protobuf/proto"
)

// TargetConfig is the service a load calls and the request it sends.
type TargetConfig struct {
	Stack transport.Stack
	Addr  string
	// Transport carries HTTP version, TLS, limits and the byte-counting
	// dialer; codec and compression come from Stack.
	Transport transport.Config
	Op        transport.Op
	// Messages is a feed's length (Op feed).
	Messages int
	Model    string
	Count    int
	Seed     uint64
	// Schema is the payload schema's version the generator sends and reads
	// its replies in (default v1), as a caller of that version would.
	Schema evolution.Version
	// Connections is how many clients are dialled (default 1); workers
	// share them in turn. An HTTP/1.1 client opens a connection per
	// concurrent call whatever this says.
	Connections int
	// PerRequest opens a new client (a new connection, and with TLS a full
	// handshake) for every call and closes it after, instead of dialling
	// Connections clients for the run.
	PerRequest bool
	// OneWay dials no clients: the body is published as one-way messages
	// by the oneway package's driver, which opens its own publishers.
	OneWay bool
}

// Target is a dialled service with its request encoded once: the
// generator's per-request work is the call and reading the reply, as a
// real caller's would be.
type Target struct {
	cfg     TargetConfig
	tr      transport.Transport
	tcfg    transport.Config
	clients []transport.Client
	next    atomic.Uint64
	req     transport.Request
	rawSize int           // the request body before compression
	cc      codec.Codec   // codec with the stack's compression, for replies
	msg     proto.Message // the request's message, for Encode
	model   payload.Model
	// replyOp is the operation whose reply a reply (a feed's, each
	// message) is read as; stack names the stack in a feed's refusal.
	replyOp transport.Op
	stack   string
	// replySize is the last good reply's body size (a feed's, one
	// message's).
	replySize atomic.Int64
}

// DialTarget dials the service and encodes the request.
func DialTarget(ctx context.Context, cfg TargetConfig) (*Target, error) {
	tr, err := transport.Lookup(cfg.Stack.Transport)
	if err != nil {
		return nil, err
	}
	m, err := payload.Lookup(cfg.Model)
	if err != nil {
		return nil, err
	}
	if err := m.CheckCount(cfg.Count); err != nil {
		return nil, err
	}
	if err := cfg.Schema.Check(); err != nil {
		return nil, err
	}
	c, z, err := transport.BodyCodec(tr, cfg.Stack)
	if err != nil {
		return nil, err
	}
	tcfg := cfg.Transport
	tcfg.Codec, tcfg.Compression = cfg.Stack.Codec, cfg.Stack.Compression
	if cfg.PerRequest {
		if err := transport.PerRequestRefusal(cfg.Stack.Transport); err != nil {
			return nil, err
		}
	}
	if err := checkFeed(cfg); err != nil {
		return nil, err
	}
	t := &Target{cfg: cfg, tr: tr, tcfg: tcfg, model: m, cc: codec.Compressed(c, z, tcfg.MaxBytesOrDefault()),
		replyOp: cfg.Op, stack: cfg.Stack.String()}
	t.req = transport.Request{Op: cfg.Op, Model: cfg.Model, Count: cfg.Count, Codec: c, Compression: z}
	if cfg.Op == transport.OpFeed {
		t.req.Messages, t.replyOp = cfg.Messages, transport.OpGet // a feed asks as a get does, N times over
	}
	if err := t.encodeBody(c, z); err != nil {
		return nil, err
	}
	if cfg.PerRequest || cfg.OneWay {
		return t, nil // each call dials its own, or the one-way driver does
	}
	if err := t.dial(ctx); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// encodeBody encodes the request's body, once: a post's or an echo's; a
// get and a feed send none.
func (t *Target) encodeBody(c codec.Codec, z codec.Compression) error {
	cfg, m, limit := t.cfg, t.model, t.tcfg.MaxBytesOrDefault()
	if t.req.Op == transport.OpGet || t.req.Op == transport.OpFeed {
		return nil
	}
	if size, err := m.EncodedSize(cfg.Count, c.Marshal); err == nil && size > int64(limit) {
		return fmt.Errorf("%d %s encode to about %d bytes in %s, over the %d bytes a body may have: use a smaller count", cfg.Count, m.Unit, size, cfg.Stack.Codec, limit)
	}
	msg, err := cfg.Schema.Message(m, cfg.Count, cfg.Seed)
	if err != nil {
		return err
	}
	raw, err := c.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encoding the request: %w", err)
	}
	t.msg, t.rawSize = msg, len(raw)
	if t.req.Body, err = z.Compress(raw); err != nil {
		return fmt.Errorf("compressing the request: %w", err)
	}
	return nil
}

// dial dials the clients the workers share; a feed's must call feeds.
func (t *Target) dial(ctx context.Context) error {
	for range max(t.cfg.Connections, 1) {
		cl, err := transport.Dial(ctx, t.tr, t.cfg.Addr, t.tcfg)
		if err != nil {
			return fmt.Errorf("dialling %s at %s: %w", t.cfg.Stack, t.cfg.Addr, err)
		}
		t.clients = append(t.clients, cl)
	}
	if _, ok := t.clients[0].(transport.FeedClient); t.cfg.Op == transport.OpFeed && !ok {
		return fmt.Errorf("%s's client calls no feeds (server streaming)", t.stack)
	}
	return nil
}

// checkFeed refuses a feed the stack does not carry, or of no length.
func checkFeed(cfg TargetConfig) error {
	if cfg.Op != transport.OpFeed {
		return nil
	}
	if cfg.Messages < 1 || cfg.Messages > transport.MaxFeedMessages {
		return fmt.Errorf("feed of %d messages: want 1 to %d", cfg.Messages, transport.MaxFeedMessages)
	}
	return transport.FeedRefusal(cfg.Stack.Transport)
}

// RequestBytes is the request body's size as hopbench hands it to the
// transport: encoded, and compressed when hopbench compresses the body
// for the stack (rest+gzip; gRPC compresses by itself, after); zero for
// a get.
func (t *Target) RequestBytes() int { return len(t.req.Body) }

// RawRequestBytes is the encoded request body before any compression.
func (t *Target) RawRequestBytes() int { return t.rawSize }

// ReplyBytes is the body of the last good reply as the transport handed
// it over: encoded, and still compressed when hopbench compresses bodies
// for the stack (rest+gzip); zero before any.
func (t *Target) ReplyBytes() int { return int(t.replySize.Load()) }

// NewCall returns a Call for one worker, on the next client in turn, or,
// per request, on a client of its own that it dials and closes.
func (t *Target) NewCall() Call {
	var f *feedCall
	if t.cfg.Op == transport.OpFeed {
		f = t.newFeedCall()
	}
	if t.cfg.PerRequest {
		return func(ctx context.Context) error { return t.callOnNewClient(ctx, f) }
	}
	cl := t.clients[int(t.next.Add(1)-1)%len(t.clients)]
	if f != nil {
		return func(ctx context.Context) error { return f.call(ctx, cl) }
	}
	return func(ctx context.Context) error {
		b, err := cl.Call(ctx, &t.req)
		if err != nil {
			return err
		}
		return t.check(b)
	}
}

// callOnNewClient makes one call (a feed's through f, when not nil) on a
// client dialled for it: its latency includes connecting (and the TLS
// handshake), as a caller that keeps no connection pays it.
func (t *Target) callOnNewClient(ctx context.Context, f *feedCall) error {
	cl, err := transport.Dial(ctx, t.tr, t.cfg.Addr, t.tcfg)
	if err != nil {
		return err
	}
	if f != nil {
		defer cl.Close()
		return f.call(ctx, cl)
	}
	b, err := cl.Call(ctx, &t.req)
	cl.Close()
	if err != nil {
		return err
	}
	return t.check(b)
}

// check reads a reply as a caller would and makes sure it is the one asked
// for: a get or echo (or a feed's message) carries Count items, a post's
// ack counts them.
func (t *Target) check(b []byte) error {
	reply := t.cfg.Schema.NewReply(t.replyOp, t.model)
	if err := t.cc.Unmarshal(b, reply); err != nil {
		return fmt.Errorf("reading the reply: %w", err)
	}
	got := 0
	if ack, ok := reply.(*pb.Ack); ok {
		got = int(ack.Count)
	} else {
		got = t.cfg.Schema.Len(t.model, reply)
	}
	if got != t.cfg.Count {
		return fmt.Errorf("the reply carries %d %s, want %d", got, t.model.Unit, t.cfg.Count)
	}
	// Replies of a case are all alike: workers read the shared value and
	// write it only when it changes, so they do not contend for it.
	if n := int64(len(b)); t.replySize.Load() != n {
		t.replySize.Store(n)
	}
	return nil
}

// Probe makes one call and returns its error: a readiness check.
func (t *Target) Probe(ctx context.Context) error { return t.NewCall()(ctx) }

// Close closes every client.
func (t *Target) Close() error {
	var errs []error
	for _, c := range t.clients {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// Body is the encoded (and compressed) request body, sent as is by every
// call: one-way messages carry it.
func (t *Target) Body() []byte { return t.req.Body }

// Encode encodes (and compresses) the request's message again, as a
// sender that serializes every message it sends does: a one-way
// publisher with encode each. It returns what Body returns, made anew.
func (t *Target) Encode() ([]byte, error) {
	if t.msg == nil {
		return nil, fmt.Errorf("a %s carries no body to encode", t.req.Op)
	}
	return t.cc.Marshal(t.msg)
}

// TransportConfig is the transport configuration the target's clients
// are dialled with: the stack's codec and compression, TLS, limits and
// the window's counting dialer.
func (t *Target) TransportConfig() transport.Config { return t.tcfg }

// ReadBody decodes a body as the request's message, as the service that
// receives it does (a one-way message's consumer).
func (t *Target) ReadBody(b []byte) error { return t.cc.Unmarshal(b, t.model.New()) }
