// Package node is the service every run is made of: for each request it
// decodes, performs the operation, calls its downstream nodes, re-encodes and
// replies. Every hop really decodes and encodes, so codec cost is measured
// at every hop, the same way on every stack.
package node

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/wire"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// DefaultMaxInFlight is the requests a node serves at once unless told
// otherwise.
const DefaultMaxInFlight = 1024

// Config is one node. Zero values take the documented defaults.
type Config struct {
	Stack transport.Stack
	// Listen is host:port; default 127.0.0.1:0 (a free port on loopback).
	Listen string
	// Downstream are the nodes this one calls for every request, in
	// parallel; replies are aggregated (see docs/node.md).
	Downstream []string
	// Transport carries HTTP version, TLS and limits; Codec and Compression
	// are taken from Stack.
	Transport transport.Config
	// Cache reuses the encoded reply of an identical get.
	Cache bool
	// MaxInFlight bounds concurrent requests (default 1024); above it a
	// request is refused as unavailable rather than queued.
	MaxInFlight int
	// Seed is the generator seed for get replies (default payload.DefaultSeed).
	Seed uint64
	// Admin is the admin endpoint's host:port; empty means none.
	Admin string
	// Network is emulated on every connection the node dials: its calls
	// downstream and, on broker stacks, its connections to the broker.
	Network network.Profile
	// Schema is the version of the payload schema the node decodes into
	// and answers in (default v1; v2 for schema evolution).
	Schema evolution.Version
}

// Node is a running service.
type Node struct {
	cfg      Config
	server   transport.Server
	clients  []transport.Client
	admin    transport.Server
	inFlight chan struct{}
	timings  *timings
	requests atomic.Int64
	errs     sync.Map // code name -> *atomic.Int64
	hits     atomic.Int64
	cache    sync.Map // cacheKey -> []byte
	// sizeBounds bound a model's encoded size in a codec, measured once:
	// what a get's reply size is checked against the limit with.
	sizeBounds sync.Map // itemKey -> *payload.SizeBound
	// wire counts the connections the node dials: its calls downstream
	// and, on broker stacks, all its traffic to and from the broker.
	wire      wire.Counter
	wireMu    sync.Mutex
	wireSince wire.Totals
	// codec and compression of the stack, for downstream calls made on
	// behalf of message-level transports.
	codec       codec.Codec
	compression codec.Compression
}

type cacheKey struct {
	model           string
	count, messages int
	codec, compr    string
}

// Start starts a node and, when configured, its admin endpoint.
func Start(ctx context.Context, cfg Config) (*Node, error) {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.Seed == 0 {
		cfg.Seed = payload.DefaultSeed
	}
	if err := cfg.Schema.Check(); err != nil {
		return nil, err
	}
	tr, err := transport.Lookup(cfg.Stack.Transport)
	if err != nil {
		return nil, err
	}
	tcfg := cfg.Transport
	tcfg.Codec, tcfg.Compression = cfg.Stack.Codec, cfg.Stack.Compression
	n := &Node{cfg: cfg, inFlight: make(chan struct{}, cfg.MaxInFlight), timings: newTimings()}
	if tcfg.Dialer == nil {
		tcfg.Dialer = &wire.Dialer{Counter: &n.wire, Network: cfg.Network}
	}
	if n.codec, n.compression, err = transport.BodyCodec(tr, cfg.Stack); err != nil {
		return nil, err
	}
	for _, addr := range cfg.Downstream {
		c, err := transport.Dial(ctx, tr, addr, tcfg)
		if err != nil {
			n.Close()
			return nil, fmt.Errorf("node: downstream %s: %w", addr, err)
		}
		n.clients = append(n.clients, c)
	}
	h := transport.Handler{Bytes: n.handle, Feed: n.handleFeed}
	if cfg.Schema.IsV1() {
		// Transports that decode bodies themselves (GraphQL) decode into
		// v1's messages: a node of another version offers them no
		// message-level handler, and they refuse to listen.
		h.Message = n.handleMessage
	}
	if n.server, err = transport.Listen(ctx, tr, cfg.Listen, tcfg, h); err != nil {
		n.Close()
		return nil, fmt.Errorf("node: %w", err)
	}
	n.cfg.Listen = n.server.Addr()
	if cfg.Admin != "" {
		if n.admin, err = startAdmin(ctx, cfg.Admin, n); err != nil {
			n.Close()
			return nil, err
		}
	}
	return n, nil
}

// Addr is the service's address.
func (n *Node) Addr() string { return n.cfg.Listen }

// Health is nil while the node can serve; on a broker stack, once its
// connection to the broker is lost, it says so.
func (n *Node) Health() error {
	if h, ok := n.server.(transport.Healthy); ok {
		return h.Health()
	}
	return nil
}

// AdminAddr is the admin endpoint's address, or "" without one.
func (n *Node) AdminAddr() string {
	if n.admin == nil {
		return ""
	}
	return n.admin.Addr()
}

// Close stops serving and closes downstream clients and the admin endpoint.
func (n *Node) Close() error {
	var errs []error
	if n.server != nil {
		errs = append(errs, n.server.Close())
	}
	for _, c := range n.clients {
		errs = append(errs, c.Close())
	}
	if n.admin != nil {
		errs = append(errs, n.admin.Close())
	}
	return errors.Join(errs...)
}

// admit takes an in-flight slot and counts the request; release gives the
// slot back. Past the limit the request is refused, not queued.
func (n *Node) admit() (release func(), err error) {
	select {
	case n.inFlight <- struct{}{}:
	default:
		return nil, n.fail(transport.Errorf(transport.CodeUnavailable, "node at its limit of %d requests in flight", n.cfg.MaxInFlight))
	}
	n.requests.Add(1)
	return func() { <-n.inFlight }, nil
}

func (n *Node) handle(ctx context.Context, req *transport.Request) ([]byte, error) {
	release, err := n.admit()
	if err != nil {
		return nil, err
	}
	defer release()
	reply, err := n.serve(ctx, req)
	if err != nil {
		return nil, n.fail(err)
	}
	return reply, nil
}

// handleMessage serves transports that decode and encode themselves: the
// node's decode and encode phases are then the transport's, outside these
// figures, and only work and downstream are timed here.
func (n *Node) handleMessage(ctx context.Context, req *transport.MessageRequest) (proto.Message, error) {
	release, err := n.admit()
	if err != nil {
		return nil, err
	}
	defer release()
	start := time.Now()
	m, err := payload.Lookup(req.Model)
	if err != nil {
		return nil, n.fail(&transport.Error{Code: transport.CodeNotFound, Msg: err.Error()})
	}
	tr := transport.Request{Op: req.Op, Model: req.Model, Count: req.Count, Codec: n.codec, Compression: n.compression}
	reply, work, down, err := n.operate(ctx, &tr, m, req.Body)
	if err != nil {
		return nil, n.fail(err)
	}
	var d [numPhases]time.Duration
	d[PhaseWork], d[PhaseDownstream], d[PhaseTotal] = work, down, time.Since(start)
	n.timings.record(&d)
	return reply, nil
}

func (n *Node) fail(err error) error {
	name := transport.CodeOf(err).String()
	c, _ := n.errs.LoadOrStore(name, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
	return err
}

func (n *Node) serve(ctx context.Context, req *transport.Request) ([]byte, error) {
	var d [numPhases]time.Duration
	start := time.Now()
	m, err := payload.Lookup(req.Model)
	if err != nil {
		return nil, &transport.Error{Code: transport.CodeNotFound, Msg: err.Error()}
	}
	cc := codec.Compressed(req.Codec, req.Compression, n.cfg.Transport.MaxBytesOrDefault())
	cached := n.cfg.Cache && req.Op == transport.OpGet
	var key cacheKey
	if cached {
		key = cacheKey{model: req.Model, count: req.Count, codec: req.Codec.Name(), compr: req.Compression.Name()}
		if b, ok := n.cache.Load(key); ok {
			n.hits.Add(1)
			d[PhaseTotal] = time.Since(start)
			n.timings.record(&d)
			return b.([]byte), nil
		}
	}

	var in proto.Message
	if req.Op != transport.OpGet {
		in = n.cfg.Schema.New(m)
		if err := cc.Unmarshal(req.Body, in); err != nil {
			return nil, decodeError(req, cc, err)
		}
	}
	d[PhaseDecode] = time.Since(start)

	reply, work, down, err := n.operate(ctx, req, m, in)
	if err != nil {
		return nil, err
	}
	d[PhaseWork], d[PhaseDownstream] = work, down

	t := time.Now()
	out, err := cc.Marshal(reply)
	if err != nil {
		return nil, transport.Errorf(transport.CodeInternal, "encoding the %s reply: %v", cc.Name(), err)
	}
	d[PhaseEncode] = time.Since(t)
	if cached {
		n.cache.Store(key, out)
	}
	d[PhaseTotal] = time.Since(start)
	n.timings.record(&d)
	return out, nil
}

func decodeError(req *transport.Request, cc codec.Codec, err error) error {
	if errors.Is(err, codec.ErrTooLarge) {
		return &transport.Error{Code: transport.CodeTooLarge, Msg: err.Error(), Err: err}
	}
	return transport.Errorf(transport.CodeBadRequest, "decoding the %s body as %s: %v", req.Model, cc.Name(), err)
}

// operate performs the operation, calling downstream nodes when there are
// any, and returns the reply with the time spent working and downstream.
func (n *Node) operate(ctx context.Context, req *transport.Request, m payload.Model, in proto.Message) (reply proto.Message, work, down time.Duration, err error) {
	t := time.Now()
	if len(n.clients) > 0 {
		replies, err := n.callDownstream(ctx, req, m, in)
		if err != nil {
			return nil, 0, 0, err
		}
		down = time.Since(t)
		t = time.Now()
		reply = aggregate(req.Op, replies)
	} else {
		switch req.Op {
		case transport.OpGet:
			if err := n.checkReplySize(req, m); err != nil {
				return nil, 0, 0, err
			}
			if reply, err = n.cfg.Schema.Message(m, req.Count, n.cfg.Seed); err != nil {
				return nil, 0, 0, &transport.Error{Code: transport.CodeBadRequest, Msg: err.Error()}
			}
		case transport.OpPost:
			reply = &pb.Ack{Model: m.Name, Count: int64(n.cfg.Schema.Len(m, in))}
		case transport.OpEcho:
			reply = in
		default:
			return nil, 0, 0, transport.Errorf(transport.CodeBadRequest, "unknown operation %q", req.Op)
		}
	}
	return reply, time.Since(t), down, nil
}

type itemKey struct{ model, codec string }

// checkReplySize refuses a get whose reply could exceed the node's body
// limit, before generating it: a count of a billion would otherwise take
// the node's memory, not just its reply. The size bound is measured once
// per model and codec, so a get pays arithmetic, not a second encoding; it
// is an upper bound (payload.SizeBound), compressed or not.
func (n *Node) checkReplySize(req *transport.Request, m payload.Model) error {
	key := itemKey{m.Name, req.Codec.Name()}
	bound, ok := n.sizeBounds.Load(key)
	if !ok {
		b, err := m.SizeBound(req.Codec.Marshal)
		if err != nil {
			return &transport.Error{Code: transport.CodeBadRequest, Msg: err.Error()}
		}
		bound, _ = n.sizeBounds.LoadOrStore(key, b)
	}
	limit := n.cfg.Transport.MaxBytesOrDefault()
	size := codec.CompressedBound(req.Compression, bound.(*payload.SizeBound).Size(req.Count))
	if size > int64(limit) {
		return &transport.Error{Code: transport.CodeTooLarge, Msg: fmt.Sprintf("a reply of %d %s could be up to %d bytes, over the node's limit of %d bytes (--max-bytes)", req.Count, m.Unit, size, limit)}
	}
	return nil
}

// callDownstream re-encodes the request for every downstream node, calls
// them in parallel and decodes their replies.
func (n *Node) callDownstream(ctx context.Context, req *transport.Request, m payload.Model, in proto.Message) ([]proto.Message, error) {
	cc := codec.Compressed(req.Codec, req.Compression, n.cfg.Transport.MaxBytesOrDefault())
	out := transport.Request{Op: req.Op, Model: req.Model, Count: req.Count, Codec: req.Codec, Compression: req.Compression}
	if in != nil {
		body, err := cc.Marshal(in)
		if err != nil {
			return nil, transport.Errorf(transport.CodeInternal, "encoding for downstream: %v", err)
		}
		out.Body = body
	}
	replies := make([]proto.Message, len(n.clients))
	errs := make([]error, len(n.clients))
	var wg sync.WaitGroup
	for i, c := range n.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := c.Call(ctx, &out)
			if err != nil {
				errs[i] = fmt.Errorf("downstream %s: %w", n.cfg.Downstream[i], err)
				return
			}
			reply := n.cfg.Schema.NewReply(req.Op, m)
			if err := cc.Unmarshal(b, reply); err != nil {
				errs[i] = transport.Errorf(transport.CodeInternal, "downstream %s: decoding its reply: %v", n.cfg.Downstream[i], err)
				return
			}
			replies[i] = reply
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		// The first failure's class is the call's: a deadline stays a deadline.
		for _, e := range errs {
			if e != nil {
				return nil, &transport.Error{Code: transport.CodeOf(e), Msg: err.Error(), Err: err}
			}
		}
	}
	return replies, nil
}

// aggregate combines downstream replies: a get merges them (lists
// concatenated), a post sums the acknowledged counts, an echo returns the
// first (every downstream echoed the same request).
func aggregate(op transport.Op, replies []proto.Message) proto.Message {
	switch op {
	case transport.OpPost:
		ack := proto.Clone(replies[0]).(*pb.Ack)
		for _, r := range replies[1:] {
			ack.Count += r.(*pb.Ack).Count
		}
		return ack
	case transport.OpGet:
		merged := replies[0]
		for _, r := range replies[1:] {
			proto.Merge(merged, r)
		}
		return merged
	}
	return replies[0]
}

// Stats returns the node's figures so far.
func (n *Node) Stats() Stats {
	s := Stats{
		Stack: n.cfg.Stack.String(), Addr: n.Addr(), Downstream: n.cfg.Downstream,
		Requests: n.requests.Load(), CacheHits: n.hits.Load(),
		Errors: map[string]int64{}, Phases: map[string]stats.Summary{}, Memory: readMemory(),
	}
	n.errs.Range(func(k, v any) bool {
		s.Errors[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	for p, h := range n.timings.merged() {
		s.Phases[Phase(p).String()] = stats.Summarize(h)
	}
	n.wireMu.Lock()
	w := n.wire.Snapshot().Sub(n.wireSince)
	n.wireMu.Unlock()
	s.Wire = &w
	return s
}

// ResetStats zeroes the node's counters and timings, so that Stats read
// later cover only the requests after it (the orchestrator calls it when a
// warm-up ends).
func (n *Node) ResetStats() {
	n.timings.reset()
	n.wireMu.Lock()
	n.wireSince = n.wire.Snapshot()
	n.wireMu.Unlock()
	n.requests.Store(0)
	n.hits.Store(0)
	n.errs.Range(func(_, v any) bool {
		v.(*atomic.Int64).Store(0)
		return true
	})
}
