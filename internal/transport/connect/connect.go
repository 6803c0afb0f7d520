// Package connect is the Connect family of stacks on connect-go
// (connectrpc.com/connect): hopbench.v1.Hop, and each user's message's
// service, served by one connect-go handler that speaks the Connect
// protocol, gRPC-Web and gRPC alike, and called with one of them:
//
//	connect       the Connect protocol (POST application/proto), HTTP/1.1 or HTTP/2
//	grpcweb       gRPC-Web, what browsers call without a proxy, HTTP/1.1 or HTTP/2
//	connect-grpc  gRPC, HTTP/2 only: grpc's wire, served and called by connect-go
//
// Bodies are Protobuf, or with +json the proto JSON mapping (protojson,
// as connect-go's JSON codec writes it), framed as the grpc stack frames
// them (hopframe) through pass-through codecs, so decoding stays the
// node's; gzip is connect-go's own, as grpc-go's is the grpc stack's.
package connect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/hopframe"
	"github.com/hopbench/hopbench/internal/transport/rest"
	"github.com/hopbench/hopbench/internal/userschema"
)

func init() {
	for _, p := range protocols {
		transport.Register(Transport{p: p})
	}
}

// protocol is how a stack of the family calls: connect-go's client option
// for it, and whether it needs HTTP/2.
type protocol struct {
	name      string
	option    connect.ClientOption // nil: the Connect protocol, connect-go's default
	http2Only bool
	traits    transport.Traits
}

var protocols = []protocol{
	{name: "connect", traits: transport.Traits{
		Notes: []string{"plain HTTP POST with a Protobuf body: curl and browsers call it without a proxy", "the same handler answers gRPC and gRPC-Web clients"},
	}},
	{name: "grpcweb", option: connect.WithGRPCWeb(), traits: transport.Traits{
		Notes: []string{"gRPC-Web: what browsers' gRPC clients send; served here without a proxy (no Envoy)"},
	}},
	{name: "connect-grpc", option: connect.WithGRPC(), http2Only: true, traits: transport.Traits{
		Browser: "browsers cannot speak gRPC's HTTP/2 trailers: they need gRPC-Web (the grpcweb stack)",
		Notes:   []string{"gRPC's wire, served and called by connect-go instead of grpc-go"},
	}},
}

// Transport is one stack of the family.
type Transport struct{ p protocol }

func (t Transport) Name() string { return t.p.name }

// Caps: Protobuf and the proto JSON mapping (json is connect-go's, not
// hopbench's json codec), compressed by the protocol (gzip, connect-go's
// built-in compressor), feeds as server streams; connect-grpc's calls
// take HTTP/2 always, the others' when the run asks.
func (t Transport) Caps() transport.Caps {
	http := transport.HTTPEither
	if t.p.http2Only {
		http = transport.HTTP2Always
	}
	return transport.Caps{
		Codecs:           []string{"proto", "json"},
		Compressions:     []string{"gzip"},
		WireCodec:        bodyCodec,
		CompressesItself: true,
		Feeds:            true,
		HTTP:             http,
		Traits:           t.p.traits,
	}
}

// httpConfig is cfg with the HTTP version the protocol needs: gRPC is
// HTTP/2 only (h2c without TLS).
func (t Transport) httpConfig(cfg transport.Config) transport.Config {
	if t.p.http2Only {
		cfg.HTTP2 = true
	}
	return cfg
}

// Listen serves h on addr: every family's three methods, in every protocol.
func (t Transport) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	cfg = t.httpConfig(cfg)
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: listen on %s: %w", t.p.name, addr, err)
	}
	srv := &http.Server{Handler: newMux(h, cfg.MaxBytesOrDefault()), TLSConfig: cfg.ServerTLS, Protocols: servedProtocols(cfg)}
	return rest.ServeHTTP(rest.Bound(l, srv, cfg.Conns), srv), nil
}

// servedProtocols are HTTP/1.1 and HTTP/2 both (h2c without TLS): one
// handler answers every protocol, whichever HTTP version a client takes.
func servedProtocols(cfg transport.Config) *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	if cfg.ServerTLS != nil {
		p.SetHTTP2(true)
	} else {
		p.SetUnencryptedHTTP2(true)
	}
	return p
}

func newMux(h transport.Handler, maxBytes int) *http.ServeMux {
	mux := http.NewServeMux()
	opts := []connect.HandlerOption{connect.WithCodec(rawCodec{}), connect.WithCodec(rawJSON{}), connect.WithCodec(rawJSON{charset: true}),
		connect.WithReadMaxBytes(maxBytes), connect.WithSendMaxBytes(maxBytes)}
	var services []string
	for _, f := range hopframe.Families() {
		services = append(services, f.Service)
	}
	// Reflection lists Hop and each user's message's service and serves
	// the files that describe them, so grpcurl and buf curl need no .proto.
	reflector := grpcreflect.NewReflector(grpcreflect.NamerFunc(func() []string { return services }),
		grpcreflect.WithDescriptorResolver(userschema.Resolver()))
	mux.Handle(grpcreflect.NewHandlerV1(reflector))
	mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector))
	for _, f := range hopframe.Families() {
		mux.Handle(f.Procedure(transport.OpFeed), connect.NewServerStreamHandler(f.Procedure(transport.OpFeed),
			func(ctx context.Context, req *connect.Request[hopframe.Frame], stream *connect.ServerStream[hopframe.Frame]) error {
				err := hopframe.ServeFeed(ctx, h, f, req.Msg, stream.Send)
				var sent *connect.Error // a send connect-go refused: its status stands
				if errors.As(err, &sent) {
					return sent
				}
				if err != nil {
					return toError(err)
				}
				return nil
			}, opts...))
		for _, op := range hopframe.Unary {
			mux.Handle(f.Procedure(op), connect.NewUnaryHandler(f.Procedure(op),
				func(ctx context.Context, req *connect.Request[hopframe.Frame]) (*connect.Response[hopframe.Frame], error) {
					out, err := hopframe.Serve(ctx, h, f, op, req.Msg)
					if err == nil && ctx.Err() != nil {
						// connect-go leaves the caller's deadline
						// (Connect-Timeout-Ms, grpc-timeout) to the
						// handler: a reply made past it is not sent.
						err = transport.CutOff(ctx, ctx.Err())
					}
					if err != nil {
						return nil, toError(err)
					}
					return connect.NewResponse(out), nil
				}, opts...))
		}
	}
	return mux
}

// rawCodec passes frames through as Protobuf ("proto": application/proto,
// application/grpc+proto, application/grpc-web+proto on the wire).
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

// Marshal copies the frame: connect-go puts what Marshal returns into its
// buffer pool for later writes, and a frame's body is often shared (the
// load's pre-encoded request, sent by every worker at once).
func (rawCodec) Marshal(v any) ([]byte, error) { return rawCodec{}.MarshalAppend(nil, v) }

// MarshalAppend appends the frame to connect-go's pooled buffer, so a
// shared body is copied once and never handed to the pool.
func (rawCodec) MarshalAppend(dst []byte, v any) ([]byte, error) {
	f, ok := v.(*hopframe.Frame)
	if !ok {
		return nil, fmt.Errorf("connect: cannot marshal a %T, only frames", v)
	}
	return append(append(append(dst, f.Header...), f.Body...), f.Tail...), nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	f, ok := v.(*hopframe.Frame)
	if !ok {
		return fmt.Errorf("connect: cannot unmarshal into a %T, only frames", v)
	}
	f.Header, f.Body = nil, bytes.Clone(data) // connect-go reuses its buffers
	return nil
}

// rawJSON passes frames through in the proto JSON mapping ("json":
// application/json, application/connect+json, application/grpc+json,
// application/grpc-web+json on the wire), marking what it reads as JSON.
// With charset it is the same codec under the name connect-go gives the
// types with "; charset=utf-8", which it serves (and lists in
// Accept-Post) with its stock codec unless one is registered: that codec
// cannot read a frame.
type rawJSON struct{ charset bool }

func (j rawJSON) Name() string {
	if j.charset {
		return "json; charset=utf-8"
	}
	return "json"
}

func (rawJSON) Marshal(v any) ([]byte, error) { return rawCodec{}.Marshal(v) }

func (rawJSON) MarshalAppend(dst []byte, v any) ([]byte, error) {
	return rawCodec{}.MarshalAppend(dst, v)
}

func (rawJSON) Unmarshal(data []byte, v any) error {
	if err := (rawCodec{}).Unmarshal(data, v); err != nil {
		return err
	}
	v.(*hopframe.Frame).JSON = true
	return nil
}

// bodyCodec: connect's json is the proto JSON mapping, as connect-go's
// JSON codec writes it; its proto is Protobuf.
func bodyCodec(name string) (codec.Codec, error) {
	if name == "json" {
		return codec.ProtoJSON, nil
	}
	return codec.Lookup(name)
}

var codeToConnect = map[transport.Code]connect.Code{
	transport.CodeInternal:    connect.CodeInternal,
	transport.CodeBadRequest:  connect.CodeInvalidArgument,
	transport.CodeTooLarge:    connect.CodeResourceExhausted,
	transport.CodeUnavailable: connect.CodeUnavailable,
	transport.CodeDeadline:    connect.CodeDeadlineExceeded,
	transport.CodeNotFound:    connect.CodeNotFound,
}

func toError(err error) error {
	return connect.NewError(codeToConnect[transport.CodeOf(err)], err)
}

// fromError classifies a client-side error.
func fromError(ctx context.Context, err error) error {
	code := transport.CodeInternal
	for c, k := range codeToConnect {
		if k == connect.CodeOf(err) {
			code = c
		}
	}
	if connect.CodeOf(err) == connect.CodeCanceled {
		code = transport.CodeUnavailable
	}
	msg := err.Error()
	var ce *connect.Error
	if errors.As(err, &ce) {
		msg = ce.Message()
	}
	return transport.CutOff(ctx, &transport.Error{Code: code, Msg: msg, Err: err})
}

// Dial returns a client for the server at target, calling with t's
// protocol.
func (t Transport) Dial(_ context.Context, target string, cfg transport.Config) (transport.Client, error) {
	cfg = t.httpConfig(cfg)
	limit := cfg.MaxBytesOrDefault()
	var wire connect.Codec = rawCodec{}
	if cfg.Codec == "json" {
		wire = rawJSON{}
	}
	opts := []connect.ClientOption{connect.WithCodec(wire), connect.WithReadMaxBytes(limit), connect.WithSendMaxBytes(limit)}
	if t.p.option != nil {
		opts = append(opts, t.p.option)
	}
	if cfg.Compression == "gzip" {
		opts = append(opts, connect.WithSendGzip())
	} else { // no compression either way: connect-go's clients accept gzip by default
		opts = append(opts, connect.WithAcceptCompression("gzip", nil, nil))
	}
	return &client{http: rest.NewHTTPClient(cfg), base: rest.BaseURL(target, cfg), opts: opts, calls: map[string]*connect.Client[hopframe.Frame, hopframe.Frame]{}}, nil
}

type client struct {
	http  *http.Client
	base  string
	opts  []connect.ClientOption
	mu    sync.Mutex
	calls map[string]*connect.Client[hopframe.Frame, hopframe.Frame] // by procedure
}

func (c *client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// procedure is connect-go's client of one procedure, made once.
func (c *client) procedure(p string) *connect.Client[hopframe.Frame, hopframe.Frame] {
	c.mu.Lock()
	defer c.mu.Unlock()
	cc := c.calls[p]
	if cc == nil {
		cc = connect.NewClient[hopframe.Frame, hopframe.Frame](c.http, c.base+p, c.opts...)
		c.calls[p] = cc
	}
	return cc
}

func (c *client) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	f, in, err := hopframe.Call(req)
	if err != nil {
		return nil, err
	}
	out, err := c.procedure(f.Procedure(req.Op)).CallUnary(ctx, connect.NewRequest(in))
	if err != nil {
		return nil, fromError(ctx, err)
	}
	return f.Reply(req.Op, out.Msg)
}

// Feed calls a feed: a server stream whose messages are handed to each as
// they arrive; an error from each ends the stream.
func (c *client) Feed(ctx context.Context, req *transport.Request, each func([]byte) error) error {
	f, in, err := hopframe.Call(req)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.procedure(f.Procedure(transport.OpFeed)).CallServerStream(ctx, connect.NewRequest(in))
	if err != nil {
		return fromError(ctx, err)
	}
	defer stream.Close()
	for stream.Receive() {
		body, err := f.Reply(transport.OpFeed, stream.Msg())
		if err != nil {
			return err
		}
		if err := each(body); err != nil {
			return err
		}
	}
	if err := stream.Err(); err != nil {
		return fromError(ctx, err)
	}
	return nil
}
