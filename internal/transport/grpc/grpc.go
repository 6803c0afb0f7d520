// Package grpc is the gRPC stack on grpc-go: service hopbench.v1.Hop with
// unary Get, Post and Echo, Protobuf bodies, optional gzip (grpc-encoding),
// TLS, and server reflection so grpcurl and ghz need no proto files.
//
// The server and client move raw bytes (a forced pass-through codec): the
// model's encoding travels as the matching field of the Payload oneof, added
// and removed at the wire level, so decoding stays the node's, as on every
// stack, and what is on the wire is exactly what protoc-generated code sends.
package grpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"
	v1reflectiongrpc "google.golang.org/grpc/reflection/grpc_reflection_v1"
	v1alphareflectiongrpc "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/hopframe"
	"github.com/hopbench/hopbench/internal/userschema"
)

func init() {
	transport.Register(Transport{})
	transport.Register(Transport{stream: true})
}

// Transport is the grpc stack, or with stream grpc-stream: the same
// server, each client's calls over one bidirectional stream.
type Transport struct{ stream bool }

func (t Transport) Name() string {
	if t.stream {
		return "grpc-stream"
	}
	return "grpc"
}

// Caps: Protobuf bodies, compressed by gRPC itself (gzip, grpc-go's
// built-in compressor), over HTTP/2 always; feeds as server streams, a
// stream each (grpc-stream: on its one shared stream, their messages
// interleaved with other calls').
func (t Transport) Caps() transport.Caps {
	return transport.Caps{
		Codecs:           []string{"proto"},
		Compressions:     []string{"gzip"},
		CompressesItself: true,
		Feeds:            true,
		HTTP:             transport.HTTP2Always,
		Traits:           t.traits(),
	}
}

// traits are what grpc offers beyond its figures.
func (t Transport) traits() transport.Traits {
	notes := []string{"generated clients in every major language from one .proto", "HTTP/2 streams many calls over one connection"}
	if t.stream {
		notes = append(notes, "a client's calls share one bidirectional stream; a message past the limit ends it, failing the calls on it")
	}
	return transport.Traits{
		Browser: "browsers cannot speak gRPC's HTTP/2 trailers: they need gRPC-Web and a proxy (Envoy) in front",
		Notes:   notes,
	}
}

// Listen serves h on addr.
func (Transport) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("grpc: listen on %s: %w", addr, err)
	}
	lim := cfg.Conns.OrDefault()
	l = transport.LimitConns(l, lim.MaxConns, nil)
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(rawCodec{}),
		grpc.MaxRecvMsgSize(cfg.MaxBytesOrDefault()),
		grpc.MaxSendMsgSize(cfg.MaxBytesOrDefault()),
		// An idle connection is closed (GOAWAY) after IdleTimeout; a
		// client may ping an idle connection at most every 10 s.
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: lim.IdleTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
		grpc.ConnectionTimeout(lim.ReadTimeout),
		grpc.NumStreamWorkers(streamWorkers),
	}
	if cfg.ServerTLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg.ServerTLS)))
	}
	srv := grpc.NewServer(opts...)
	for _, f := range hopframe.Families() {
		sd := serviceDesc(h, f)
		sd.Streams = []grpc.StreamDesc{feedDesc(h, f)}
		if f == hopframe.Hop {
			sd.Streams = append(sd.Streams, streamDesc(h, cfg.MaxBytesOrDefault()))
		}
		srv.RegisterService(sd, nil)
	}
	// Reflection serves the users' files beside hopbench's, so grpcurl
	// and ghz describe and call their services as they do Hop.
	refl := reflection.ServerOptions{Services: srv, DescriptorResolver: userschema.Resolver()}
	v1reflectiongrpc.RegisterServerReflectionServer(srv, reflection.NewServerV1(refl))
	v1alphareflectiongrpc.RegisterServerReflectionServer(srv, reflection.NewServer(refl))
	stop := func() error { srv.Stop(); return nil }
	return transport.RunServer(l, srv.Serve, stop, grpc.ErrServerStopped), nil
}

// streamWorkers is how many goroutines serve the node's calls and are
// kept between them. grpc-go otherwise starts a goroutine for every call,
// whose stack grows again on each: a fifth of a gRPC node's CPU at 64
// clients (bench/PROFILE.md). A call that finds every worker busy still
// gets a goroutine of its own at once, so none waits for another; an idle
// worker costs its stack, and grpc-go renews each after 65 536 calls.
// grpc-go marks the option experimental: TestNoCallWaitsForAWorker holds
// it to what this relies on.
const streamWorkers = 256

// serviceDesc is f's service with handlers that take and give frames.
func serviceDesc(h transport.Handler, f hopframe.Family) *grpc.ServiceDesc {
	method := func(op transport.Op) grpc.MethodDesc {
		return grpc.MethodDesc{
			MethodName: hopframe.Methods[op],
			Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				var in hopframe.Frame
				if err := dec(&in); err != nil {
					// grpc-go has already answered (a frame cut short:
					// Internal; too large: ResourceExhausted): the
					// status a handler returns now goes nowhere.
					return nil, err
				}
				out, err := hopframe.Serve(ctx, h, f, op, &in)
				if err != nil {
					return nil, toStatus(err)
				}
				return out, nil
			},
		}
	}
	return &grpc.ServiceDesc{
		ServiceName: f.Service,
		HandlerType: (*any)(nil),
		Methods:     []grpc.MethodDesc{method(transport.OpGet), method(transport.OpPost), method(transport.OpEcho)},
		Metadata:    f.File,
	}
}

var codeToGRPC = map[transport.Code]codes.Code{
	transport.CodeInternal:    codes.Internal,
	transport.CodeBadRequest:  codes.InvalidArgument,
	transport.CodeTooLarge:    codes.ResourceExhausted,
	transport.CodeUnavailable: codes.Unavailable,
	transport.CodeDeadline:    codes.DeadlineExceeded,
	transport.CodeNotFound:    codes.NotFound,
}

func toStatus(err error) error {
	return status.Error(codeToGRPC[transport.CodeOf(err)], err.Error())
}

// fromStatus classifies a client-side gRPC error.
func fromStatus(err error) error {
	st, _ := status.FromError(err)
	code := transport.CodeInternal
	for c, g := range codeToGRPC {
		if g == st.Code() {
			code = c
		}
	}
	if st.Code() == codes.Canceled || st.Code() == codes.Unknown && errors.Is(err, context.Canceled) {
		code = transport.CodeUnavailable
	}
	return &transport.Error{Code: code, Msg: st.Message(), Err: err}
}

// Dial returns a client for the grpc server at target.
func (t Transport) Dial(_ context.Context, target string, cfg transport.Config) (transport.Client, error) {
	limit := cfg.MaxBytesOrDefault()
	callOpts := []grpc.CallOption{grpc.ForceCodecV2(rawCodec{}), grpc.MaxCallRecvMsgSize(limit), grpc.MaxCallSendMsgSize(limit)}
	if cfg.Compression == "gzip" {
		callOpts = append(callOpts, grpc.UseCompressor(gzip.Name))
	}
	creds := insecure.NewCredentials()
	if cfg.ClientTLS != nil {
		creds = credentials.NewTLS(cfg.ClientTLS)
	}
	dialer := cfg.Dialer
	if dialer == nil {
		dialer = &net.Dialer{Timeout: 10 * time.Second}
	}
	conn, err := grpc.NewClient("passthrough:///"+target,
		grpc.WithTransportCredentials(creds),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return dialer.DialContext(ctx, "tcp", addr)
		}),
		grpc.WithDefaultCallOptions(callOpts...),
	)
	if err != nil {
		return nil, fmt.Errorf("grpc: client for %s: %w", target, err)
	}
	if t.stream {
		return dialStream(conn, limit)
	}
	return &client{conn: conn}, nil
}

type client struct{ conn *grpc.ClientConn }

func (c *client) Close() error { return c.conn.Close() }

func (c *client) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	f, in, err := hopframe.Call(req)
	if err != nil {
		return nil, err
	}
	var out hopframe.Frame
	if err := c.conn.Invoke(ctx, f.Procedure(req.Op), in, &out); err != nil {
		// grpc-go's Canceled status does not wrap context.Canceled.
		return nil, transport.CutOff(ctx, fromStatus(err))
	}
	return f.Reply(req.Op, &out)
}
