// Package brokered is what the broker stacks (amqp, kafka, mqtt, nats,
// redis) share: their addresses and settings (Open), the metadata every
// request and reply carries as message headers, serving a request through
// a Handler (Service), and matching replies to waiting callers by
// correlation id (Pending.Call). Each stack only moves messages with its
// broker's own client library.
package brokered

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/transport"
)

// Addr is a broker stack's address: scheme://host:port/name, where name is
// the service's queue, topic or subject.
type Addr struct {
	Scheme string
	Host   string // host:port of the broker
	Name   string
}

func (a Addr) String() string { return a.Scheme + "://" + a.Host + "/" + a.Name }

// ParseAddr reads scheme://host:port/name; the scheme may be left out. An
// empty name is replaced by a unique one when unique is set (a server
// asked for "any" name), and is an error otherwise.
func ParseAddr(s, scheme string, unique bool) (Addr, error) {
	if !strings.Contains(s, "://") {
		s = scheme + "://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return Addr{}, fmt.Errorf("address %q: want %s://host:port/name, e.g. %s://127.0.0.1:%s/hopbench", s, scheme, scheme, defaultPort(scheme))
	}
	if u.Scheme != scheme {
		return Addr{}, fmt.Errorf("address %q: want the %s:// scheme", s, scheme)
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil || port == "" {
		return Addr{}, fmt.Errorf("address %q: want host:port of the broker, e.g. 127.0.0.1:%s", s, defaultPort(scheme))
	}
	if !network.IsLoopbackHost(host) && !network.IsLab(net.ParseIP(host)) {
		return Addr{}, fmt.Errorf("address %q: the broker must be on loopback (127.0.0.1): hopbench's traffic stays on this machine", s)
	}
	a := Addr{Scheme: scheme, Host: u.Host, Name: strings.Trim(u.Path, "/")}
	switch {
	case a.Name == "" && unique:
		a.Name = "hopbench." + RandomID()
	case a.Name == "":
		return Addr{}, fmt.Errorf("address %q names no queue, topic or subject: add it as the path, e.g. %s://%s/hopbench", s, scheme, u.Host)
	case strings.ContainsAny(a.Name, "/ *>"):
		return Addr{}, fmt.Errorf("address %q: the name %q may not contain '/', spaces, '*' or '>'", s, a.Name)
	}
	return a, nil
}

func defaultPort(scheme string) string {
	return map[string]string{"amqp": "5672", "kafka": "9092", "nats": "4222", "redis": "6379", "mqtt": "1883"}[scheme]
}

// RandomID is 12 random hex digits, for names a run or a client makes
// unique.
func RandomID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Header names of the metadata a request and its reply carry.
const (
	HeaderOp          = "hopbench-op"
	HeaderModel       = "hopbench-model"
	HeaderCount       = "hopbench-count"
	HeaderContentType = "content-type"
	HeaderEncoding    = "content-encoding"
	HeaderError       = "hopbench-error"         // the failure's class, on a reply
	HeaderErrorMsg    = "hopbench-error-message" // and its message
	// HeaderDeadline is when the caller gives up on a request, in Unix
	// nanoseconds: a server does not work on a request past it, and its
	// own calls for it end by it, as gRPC propagates deadlines.
	HeaderDeadline = "hopbench-deadline"
)

// Meta is a message's metadata, carried as its headers.
type Meta map[string]string

// RequestMeta is the metadata of a call made under ctx.
func RequestMeta(ctx context.Context, req *transport.Request) Meta {
	m := Meta{HeaderOp: string(req.Op), HeaderModel: req.Model, HeaderContentType: req.Codec.ContentType()}
	if d, ok := ctx.Deadline(); ok {
		m[HeaderDeadline] = strconv.FormatInt(d.UnixNano(), 10)
	}
	if req.Op == transport.OpGet || req.Op == transport.OpFeed {
		m[HeaderCount] = strconv.Itoa(req.Count)
	}
	if req.Op == transport.OpFeed {
		m[HeaderMessages] = strconv.Itoa(req.Messages)
	}
	if enc := req.Compression.Encoding(); enc != "" {
		m[HeaderEncoding] = enc
	}
	return m
}

// parseRequest rebuilds a call from a message.
func parseRequest(m Meta, body []byte, maxBytes int) (*transport.Request, error) {
	op, err := parseOp(m[HeaderOp])
	if err != nil {
		return nil, &transport.Error{Code: transport.CodeBadRequest, Msg: err.Error()}
	}
	req := &transport.Request{Op: op, Model: m[HeaderModel], Body: body}
	if op == transport.OpGet || op == transport.OpFeed {
		if req.Count, err = strconv.Atoi(m[HeaderCount]); err != nil || req.Count < 0 {
			return nil, transport.Errorf(transport.CodeBadRequest, "header %s=%q: want a whole number of items", HeaderCount, m[HeaderCount])
		}
	}
	if op == transport.OpFeed {
		if req.Messages, err = strconv.Atoi(m[HeaderMessages]); err != nil || req.Messages < 1 {
			return nil, transport.Errorf(transport.CodeBadRequest, "header %s=%q: want a whole number of messages, 1 or more", HeaderMessages, m[HeaderMessages])
		}
	}
	if err := transport.CheckBody("request body", body, maxBytes); err != nil {
		return nil, err
	}
	if req.Codec, err = codec.ForContentType(m[HeaderContentType]); err != nil {
		return nil, &transport.Error{Code: transport.CodeBadRequest, Msg: err.Error()}
	}
	if req.Compression, err = codec.ForEncoding(m[HeaderEncoding]); err != nil {
		return nil, &transport.Error{Code: transport.CodeBadRequest, Msg: err.Error()}
	}
	return req, nil
}

// Serve answers one request message with h and hands send the reply's
// metadata and body (a classified error in the metadata when the call
// failed), under a context that ends at the caller's deadline. A request
// whose caller's deadline has passed (it waited in a queue, or in a topic
// while no node served it) gets neither work nor reply: nobody waits for
// it.
func Serve(ctx context.Context, h transport.Handler, m Meta, body []byte, maxBytes int, send func(context.Context, Meta, []byte)) {
	ctx, cancel, ok := callerDeadline(ctx, m)
	if !ok {
		return
	}
	defer cancel()
	req, err := parseRequest(m, body, maxBytes)
	var reply []byte
	if err == nil {
		reply, err = h.Bytes(ctx, req)
	}
	if err != nil {
		send(ctx, Meta{HeaderError: transport.CodeOf(err).String(), HeaderErrorMsg: err.Error()}, nil)
		return
	}
	out := Meta{HeaderContentType: req.Codec.ContentType()}
	if enc := req.Compression.Encoding(); enc != "" {
		out[HeaderEncoding] = enc
	}
	send(ctx, out, reply)
}

// callerDeadline is ctx ending at the caller's deadline, if its message
// says one; false when that has passed.
func callerDeadline(ctx context.Context, m Meta) (context.Context, context.CancelFunc, bool) {
	ns, err := strconv.ParseInt(m[HeaderDeadline], 10, 64)
	if err != nil {
		return ctx, func() {}, true
	}
	deadline := time.Unix(0, ns)
	if !time.Now().Before(deadline) {
		return ctx, nil, false
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	return ctx, cancel, true
}

// Result is a reply message as a call's outcome.
func Result(m Meta, body []byte, maxBytes int) ([]byte, error) {
	if name := m[HeaderError]; name != "" {
		code, ok := transport.CodeNamed(name)
		if !ok {
			code = transport.CodeInternal
		}
		return nil, &transport.Error{Code: code, Msg: m[HeaderErrorMsg]}
	}
	if len(body) > maxBytes {
		return nil, transport.TooLarge("reply body", -1, maxBytes)
	}
	return body, nil
}

// Reply is what a waiting caller receives.
type Reply struct {
	Meta Meta
	Body []byte
	Err  error // set when the reply could not come (connection lost, returned)
}

// Pending matches replies to waiting callers by correlation id.
type Pending struct {
	prefix string
	seq    atomic.Uint64
	mu     sync.Mutex
	calls  map[string]chan Reply
	feeds  map[string]*FeedCall
	closed error
}

// NewPending makes ids unique to this client: replies to other clients on
// a shared reply topic are told apart.
func NewPending() *Pending {
	return &Pending{prefix: RandomID() + "-", calls: map[string]chan Reply{}, feeds: map[string]*FeedCall{}}
}

// Add registers a call and returns its correlation id and where its reply
// will arrive; after Fail, it returns the failure instead.
func (p *Pending) Add() (string, <-chan Reply, error) {
	id := p.nextID()
	ch := make(chan Reply, 1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed != nil {
		return "", nil, p.closed
	}
	p.calls[id] = ch
	return id, ch, nil
}

// nextID is a correlation id unique to this client.
func (p *Pending) nextID() string { return p.prefix + strconv.FormatUint(p.seq.Add(1), 36) }

// Remove forgets a call that gave up.
func (p *Pending) Remove(id string) {
	p.mu.Lock()
	delete(p.calls, id)
	p.mu.Unlock()
}

// Deliver hands a reply to its caller, or a feed's message to its feed;
// false when none waits for id.
func (p *Pending) Deliver(id string, r Reply) bool {
	p.mu.Lock()
	ch, ok := p.calls[id]
	delete(p.calls, id)
	p.mu.Unlock()
	if !ok {
		return p.deliverPart(id, r)
	}
	ch <- r
	return true
}

// Fail ends every waiting call with err, and every later one.
func (p *Pending) Fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed == nil {
		p.closed = err
	}
	for id, ch := range p.calls {
		ch <- Reply{Err: err}
		delete(p.calls, id)
	}
	for id, fc := range p.feeds {
		fc.fail(err)
		delete(p.feeds, id)
	}
}

// Wait waits for the reply to call id, or for ctx to end. A call that
// failed without a reply (its connection lost) once ctx had ended is
// ctx's (see transport.CutOff): the end of a run tears connections down
// as it cancels its calls, and which a waiting call sees first is chance.
func (p *Pending) Wait(ctx context.Context, id string, ch <-chan Reply, maxBytes int) ([]byte, error) {
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, transport.CutOff(ctx, r.Err)
		}
		return Result(r.Meta, r.Body, maxBytes)
	case <-ctx.Done():
		p.Remove(id)
		return nil, transport.CutOff(ctx, errNoReply)
	}
}

var errNoReply = errors.New("no reply came")

// Handlers runs each request in a goroutine of its own and, on Close,
// cancels them and waits: message libraries deliver one message at a time.
// A goroutine that has served a request waits a while for the next one
// rather than ending: a new goroutine per message grows its stack anew
// each time (a JSON decode is deep), which cost the nats node a quarter of
// its CPU at 64 requests in flight (bench/PROFILE.md). Goroutines are
// never fewer than the requests in flight, as before: a request no idle
// one takes gets a new one.
//
// Serial handlers (the serve option's serial) run each request in the
// goroutine that hands it over instead, one at a time.
type Handlers struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	work   chan func(context.Context) // unbuffered: taken by an idle goroutine only
	serial bool
}

// How a broker stack's node serves the messages it is delivered: the
// serve option every broker stack takes.
const (
	ServeConcurrent = "concurrent"
	ServeSerial     = "serial"
)

// ServeOption is the broker stacks' serve option. Concurrent, the
// default, serves each message in a goroutine of its own, as an RPC
// service serves calls side by side; serial serves them one at a time in
// the goroutine the client library delivers them in, as a plain consumer
// (and bench/bareloop's bare responders) does: no message waits for
// another goroutine to wake (bench/PROFILE.md), and none is served beside
// another, so a node that calls another waits for each reply in turn.
var ServeOption = transport.Option{Name: "serve", Default: ServeConcurrent,
	Help:  "how the node serves the messages it is delivered: concurrent (each in a goroutine of its own) or serial (one at a time, in the client library's delivering goroutine, as a plain consumer does)",
	Check: transport.OneOf(ServeConcurrent, ServeSerial)}

// handlerIdle is how long a goroutine waits for another request before it
// ends: past a burst, the goroutines it needed go.
const handlerIdle = 2 * time.Second

// NewHandlers returns Handlers whose calls' contexts end on Close,
// serving as serve (ServeOption's values) says.
func NewHandlers(serve string) *Handlers {
	ctx, cancel := context.WithCancel(context.Background())
	return &Handlers{ctx: ctx, cancel: cancel, work: make(chan func(context.Context)), serial: serve == ServeSerial}
}

// Go runs f with the handlers' context, in an idle goroutine if one
// waits, else in a new one; serial handlers run it here.
func (hs *Handlers) Go(f func(ctx context.Context)) {
	if hs.serial {
		f(hs.ctx)
		return
	}
	select {
	case hs.work <- f:
	default:
		hs.wg.Add(1)
		go hs.serve(f)
	}
}

// serve runs f, then what it is handed next, until it idles past
// handlerIdle or the handlers close.
func (hs *Handlers) serve(f func(context.Context)) {
	defer hs.wg.Done()
	idle := time.NewTimer(handlerIdle)
	defer idle.Stop()
	for {
		f(hs.ctx)
		idle.Reset(handlerIdle)
		select {
		case f = <-hs.work:
		case <-idle.C:
			return
		case <-hs.ctx.Done():
			return
		}
	}
}

// Close cancels the calls in flight and waits for them.
func (hs *Handlers) Close() {
	hs.cancel()
	hs.wg.Wait()
}

// Unavailable classifies a lost or refused broker connection.
func Unavailable(format string, args ...any) *transport.Error {
	return transport.Errorf(transport.CodeUnavailable, format, args...)
}

// Refuse rejects Config settings broker stacks do not have. TLS is not
// one: servers and clients of a broker stack are both the broker's
// clients, and connect with cfg.ClientTLS (see TLSDial).
func Refuse(name string, cfg transport.Config) error {
	switch {
	case cfg.HTTP2:
		return fmt.Errorf("%s: HTTP/2 applies to HTTP stacks only", name)
	}
	return nil
}

// NetDial adapts a Config's Dialer (or a plain one) to libraries that dial
// without a context.
func NetDial(cfg transport.Config) func(network, addr string) (net.Conn, error) {
	return func(network, addr string) (net.Conn, error) {
		return ContextDial(cfg)(context.Background(), network, addr)
	}
}

// TLSDial is ContextDial, over TLS with cfg.ClientTLS when set: the
// handshake runs on the dialled (and counted) connection, so wire bytes
// include TLS's. For libraries that take a dial function only (franz-go).
func TLSDial(cfg transport.Config) func(ctx context.Context, network, addr string) (net.Conn, error) {
	dial := ContextDial(cfg)
	if cfg.ClientTLS == nil {
		return dial
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := cfg.ClientTLS.Clone()
		if tc.ServerName == "" {
			tc.ServerName, _, _ = net.SplitHostPort(addr)
		}
		conn := tls.Client(c, tc)
		if err := conn.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, fmt.Errorf("TLS to %s: %w", addr, err)
		}
		return conn, nil
	}
}

// ContextDial is cfg's Dialer, or a plain net.Dialer.
func ContextDial(cfg transport.Config) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if cfg.Dialer != nil {
		return cfg.Dialer.DialContext
	}
	var d net.Dialer
	return d.DialContext
}

// Caps are a broker stack's capabilities: every codec and compression
// (hopbench applies them to bodies), one-way messages, through broker at
// addresses of scheme.
func Caps(broker, scheme string, options []transport.Option, traits transport.Traits) transport.Caps {
	return transport.Caps{Codecs: codec.Names(), OneWay: true, Broker: broker, Scheme: scheme, Options: options, Traits: traits}
}
