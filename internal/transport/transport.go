// Package transport is the contract every stack implements: a server that
// hands each call's bytes to a Handler, and a client that makes one call.
// Transports move bytes and say what they are (operation, model, codec,
// compression); decoding, the work and encoding are the node's, so codec
// cost is measured the same way on every stack.
package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// Op is what a call asks of the service.
type Op string

const (
	OpGet  Op = "get"  // reply carries Count items of Model
	OpPost Op = "post" // request carries items; reply is an Ack
	OpEcho Op = "echo" // reply equals request
)

// Ops are the operations, in report order.
var Ops = []Op{OpGet, OpPost, OpEcho}

// NewReply returns an empty message of the kind a reply to op carries: an
// Ack for a post, a list of model items otherwise.
func NewReply(op Op, m payload.Model) proto.Message {
	if op == OpPost {
		return &pb.Ack{}
	}
	return m.New()
}

// ParseOp checks an operation name.
func ParseOp(s string) (Op, error) {
	if op := Op(s); slices.Contains(Ops, op) {
		return op, nil
	}
	return "", fmt.Errorf("unknown operation %q (known: get, post, echo)", s)
}

// Request is one call as a transport delivers it to a Handler and as a
// Client sends it.
type Request struct {
	Op    Op
	Model string
	// Count is the number of items a get asks for (a feed's, a message).
	Count int
	// Messages is the number of messages a feed's reply carries.
	Messages int
	// Body is the encoded request message (post and echo), compressed with
	// Compression; empty for get.
	Body []byte
	// Codec encodes Body and must encode the reply.
	Codec codec.Codec
	// Compression was applied to Body and should be applied to the reply.
	// Transports that compress themselves (gRPC) leave it at none.
	Compression codec.Compression
}

// Handler serves calls, in one of two forms by what the transport's protocol
// does. Errors should be *Error so each transport maps them to its own status.
type Handler struct {
	// Bytes serves transports that deliver encoded bodies (REST, gRPC, the
	// brokers): the handler decodes the request and returns the encoded
	// (and compressed) reply, so codec cost is measured alike on all of them.
	Bytes func(ctx context.Context, req *Request) ([]byte, error)
	// Message serves transports whose protocol decodes and encodes bodies
	// itself (GraphQL: the server library parses variables and writes the
	// selected fields): it takes the decoded request and returns the reply.
	Message func(ctx context.Context, req *MessageRequest) (proto.Message, error)
	// Feed serves feeds (OpFeed) on transports that carry them: it hands
	// each encoded (and compressed) message to send, in order, and returns
	// when the last is sent or the call failed; send's error (the caller
	// gone) is returned as it came.
	Feed func(ctx context.Context, req *Request, send func(msg []byte) error) error
}

// MessageRequest is a call whose body the transport decoded.
type MessageRequest struct {
	Op    Op
	Model string
	Count int
	// Body is the decoded request (post and echo); nil for get.
	Body proto.Message
}

// Server is a running listener for one stack.
type Server interface {
	// Addr is the address clients dial, e.g. 127.0.0.1:41234.
	Addr() string
	// Close stops accepting, ends calls in flight and releases everything.
	Close() error
}

// Healthy is a Server whose serving depends on something outside it: a
// broker stack's connection to its broker. Health is nil while it can
// serve and says why not when it cannot (the node's admin /ready then
// answers 503, and a run classifies it).
type Healthy interface {
	Server
	Health() error
}

// Client makes calls to one server. Safe for concurrent use; connections
// are reused, never opened per call.
type Client interface {
	Call(ctx context.Context, req *Request) ([]byte, error)
	Close() error
}

// Config is what a stack needs beyond its name, for servers and clients.
type Config struct {
	// Codec and Compression name the body format; a transport that supports
	// only one refuses others at construction.
	Codec       string
	Compression string
	// HTTP2 selects HTTP/2 for HTTP-based stacks: h2c without TLS, h2 with.
	HTTP2 bool
	// ServerTLS and ClientTLS turn TLS on; nil means plain TCP.
	ServerTLS *tls.Config
	ClientTLS *tls.Config
	// MaxBytes bounds a request or reply body (0: codec.DefaultMaxBytes).
	MaxBytes int
	// Dialer, when set, is used for every client connection (wire counting);
	// broker stacks use it for servers too, which are clients of the broker.
	Dialer Dialer
	// Options are a transport's own settings (see Optioned), e.g. amqp's
	// reply mode or kafka's acks; unknown names are refused.
	Options map[string]string
	// Conns bounds a server's connections (zero fields: the defaults).
	Conns ConnLimits
}

// ConnLimits bound what a connection may hold of a server: a request that
// takes ReadTimeout to arrive, body included, or a connection idle for
// IdleTimeout, is closed; past MaxConns open connections, new ones are
// refused. Broker stacks' servers are clients of their broker and dial no
// listener of their own.
type ConnLimits struct {
	ReadTimeout, IdleTimeout time.Duration
	MaxConns                 int
}

// Connection defaults: generous for a benchmark's callers, finite for a
// careless or hostile one.
const (
	DefaultReadTimeout = 30 * time.Second
	DefaultIdleTimeout = 2 * time.Minute
	DefaultMaxConns    = 8192
)

// OrDefault fills the zero fields with the defaults.
func (l ConnLimits) OrDefault() ConnLimits {
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultReadTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxConns <= 0 {
		l.MaxConns = DefaultMaxConns
	}
	return l
}

// Dialer opens client connections; internal/wire's counting dialer is one.
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// PacketDialer is a Dialer that also opens UDP sockets to dial QUIC from,
// counted as its TCP connections are (wire.Dialer).
type PacketDialer interface {
	ListenPacket(ctx context.Context) (net.PacketConn, error)
}

// MaxBytesOrDefault is the effective body limit.
func (c Config) MaxBytesOrDefault() int {
	if c.MaxBytes > 0 {
		return c.MaxBytes
	}
	return codec.DefaultMaxBytes
}

// Transport is one technology: rest, grpc, graphql, ...
type Transport interface {
	Name() string
	// Caps are what the stack carries and how, declared once.
	Caps() Caps
	// Listen starts serving h on addr (host:port; port 0 picks one).
	Listen(ctx context.Context, addr string, cfg Config, h Handler) (Server, error)
	// Dial returns a client for the server at target.
	Dial(ctx context.Context, target string, cfg Config) (Client, error)
}

var registry = map[string]Transport{}

// Register adds a transport; each technology's package calls it from init.
// Registering a name twice, or with capabilities that contradict each
// other, is a programming error.
func Register(t Transport) {
	if _, dup := registry[t.Name()]; dup {
		panic("transport: " + t.Name() + " registered twice")
	}
	if err := t.Caps().check(t); err != nil {
		panic("transport: " + t.Name() + "'s capabilities: " + err.Error())
	}
	registry[t.Name()] = t
}

// Names returns the registered transports, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the transport called name.
func Lookup(name string) (Transport, error) {
	if t, ok := registry[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("unknown stack technology %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Option is a setting a transport takes beyond Config's common fields.
type Option struct {
	Name    string
	Default string
	Help    string
	// Check refuses a bad value with a reason (nil: any value).
	Check func(string) error
}

// OneOf checks an option takes one of values.
func OneOf(values ...string) func(string) error {
	return func(v string) error {
		if slices.Contains(values, v) {
			return nil
		}
		return fmt.Errorf("want one of %v", values)
	}
}

// PositiveInt checks an option is a whole number of 1 or more.
func PositiveInt(v string) error {
	if n, err := strconv.Atoi(v); err != nil || n < 1 {
		return errors.New("want a whole number of 1 or more")
	}
	return nil
}

// Bool checks an option is true or false.
func Bool(v string) error {
	if _, err := strconv.ParseBool(v); err != nil {
		return errors.New("want true or false")
	}
	return nil
}

// Duration checks an option is a Go duration.
func Duration(v string) error {
	if _, err := time.ParseDuration(v); err != nil {
		return errors.New("want a duration such as 0s or 10ms")
	}
	return nil
}

// Listen starts t's server at addr after the checks every stack owes its
// callers, made here once so that no transport can forget them: options
// resolved, unknown ones refused with the known ones named.
func Listen(ctx context.Context, t Transport, addr string, cfg Config, h Handler) (Server, error) {
	if err := refuseConfig(t, cfg.Codec, cfg.Compression); err != nil {
		return nil, err
	}
	if _, err := ResolveOptions(t, cfg.Options); err != nil {
		return nil, err
	}
	return t.Listen(ctx, addr, cfg, h)
}

// Dial connects a client of t to target after the same checks as Listen.
func Dial(ctx context.Context, t Transport, target string, cfg Config) (Client, error) {
	if err := refuseConfig(t, cfg.Codec, cfg.Compression); err != nil {
		return nil, err
	}
	if _, err := ResolveOptions(t, cfg.Options); err != nil {
		return nil, err
	}
	return t.Dial(ctx, target, cfg)
}

// ResolveOptions checks given against t's options and returns every option
// of t with its value: the given one or the default.
func ResolveOptions(t Transport, given map[string]string) (map[string]string, error) {
	opts := OptionsOf(t)
	out := make(map[string]string, len(opts))
	for _, o := range opts {
		out[o.Name] = o.Default
	}
	for name, v := range given {
		i := slices.IndexFunc(opts, func(o Option) bool { return o.Name == name })
		if i < 0 {
			known := make([]string, len(opts))
			for j, o := range opts {
				known[j] = o.Name
			}
			if len(known) == 0 {
				return nil, fmt.Errorf("%s takes no options (got %s=%s)", t.Name(), name, v)
			}
			return nil, fmt.Errorf("%s: unknown option %q (known: %s)", t.Name(), name, strings.Join(known, ", "))
		}
		if opts[i].Check != nil {
			if err := opts[i].Check(v); err != nil {
				return nil, fmt.Errorf("%s option %s=%q: %v", t.Name(), name, v, err)
			}
		}
		out[name] = v
	}
	return out, nil
}

// Traits are what a technology offers that no run measures, as the studies
// name them; hopbench advise weighs them against a user's requirements.
type Traits struct {
	// Decoupled: callers and services meet at a broker, so either can be
	// slow or away for a while without the other failing at once.
	Decoupled bool
	// Durable says how requests can survive a restart; empty if they cannot.
	Durable string
	// Browser says what a browser or third-party client needs to call the
	// service; empty when a plain HTTP client does.
	Browser string
	// Schema says how the API's schema evolves, for technologies that fix
	// one themselves (otherwise the body codec's says).
	Schema string
	// Notes are further trade-offs worth knowing.
	Notes []string
}

// The HTTP versions an L7 proxy speaks (Caps.HTTP).
const (
	HTTP1 = "http/1.1"
	HTTP2 = "h2"
)

// HTTPEither is the HTTP version of a transport whose calls take HTTP/2
// when the run asks for it, HTTP/1.1 otherwise.
func HTTPEither(http2 bool) string {
	if http2 {
		return HTTP2
	}
	return HTTP1
}

// HTTP2Always is the HTTP version of a transport whose calls take HTTP/2
// whatever the run asks.
func HTTP2Always(bool) string { return HTTP2 }
