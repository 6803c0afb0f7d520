package main

import (
	"context"
	"errors"
	"flag"
	"net"
	"net/http"
	"os"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"github.com/quic-go/quic-go/http3"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/certs"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// caOut is where -serve rest-h3 writes its throwaway CA, for the caller's --ca.
var caOut = flag.String("ca-out", "", "with -serve rest-h3: write the throwaway CA certificate (PEM) here")

// serveToday are the bare responders of the stacks of issue 41: each the
// plainest echo of its library, for bench/latency1.sh.
var serveToday = map[string]func(ctx context.Context, addr string, ready func()) error{
	// connect+json too: connect-go's default codecs include its protojson.
	"connect": serveConnect, "grpcweb": serveConnect, "connect-grpc": serveConnect, "connect+json": serveConnect,
	"grpc-stream": serveGRPC, "ws": serveWS, "rest-h3": serveH3,
}

// serveConnect answers Hop/Echo with its request, with connect-go's
// default codecs on the generated Payload, over HTTP/1.1 and h2c: the
// Connect protocol, gRPC-Web and gRPC alike.
func serveConnect(ctx context.Context, addr string, ready func()) error {
	mux := http.NewServeMux()
	mux.Handle("/hopbench.v1.Hop/Echo", connect.NewUnaryHandler("/hopbench.v1.Hop/Echo",
		func(_ context.Context, req *connect.Request[pb.Payload]) (*connect.Response[pb.Payload], error) {
			return connect.NewResponse(req.Msg), nil
		}))
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return serveHTTP(ctx, addr, &http.Server{Handler: mux, Protocols: p}, ready)
}

func serveHTTP(ctx context.Context, addr string, srv *http.Server, ready func()) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); srv.Close() }()
	ready()
	if err := srv.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Stream answers each Envelope on Hop/Stream with its body, in turn.
func (echoServer) Stream(s grpc.BidiStreamingServer[pb.Envelope, pb.Envelope]) error {
	for {
		in, err := s.Recv()
		if err != nil {
			return nil
		}
		if err := s.Send(&pb.Envelope{Id: in.Id, Body: in.Body}); err != nil {
			return err
		}
	}
}

// serveWS answers each Envelope on a WebSocket at /v1/ws with its body.
func serveWS(ctx context.Context, addr string, ready func()) error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(1 << 20)
		for {
			_, b, err := c.Read(r.Context())
			if err != nil {
				return
			}
			var in pb.Envelope
			if proto.Unmarshal(b, &in) != nil {
				return
			}
			out, _ := proto.Marshal(&pb.Envelope{Id: in.Id, Body: in.Body})
			if c.Write(r.Context(), websocket.MessageBinary, out) != nil {
				return
			}
		}
	})
	return serveHTTP(ctx, addr, &http.Server{Handler: mux}, ready)
}

// serveH3 echoes each POST's body on /v1/text/echo over HTTP/3, with a
// throwaway certificate whose CA -ca-out writes.
func serveH3(ctx context.Context, addr string, ready func()) error {
	b, err := certs.New()
	if err != nil {
		return err
	}
	if *caOut != "" {
		if err := os.WriteFile(*caOut, b.CAPEM, 0o644); err != nil {
			return err
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/text/echo", echoBody)
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		return err
	}
	defer pc.Close()
	srv := &http3.Server{Handler: mux, TLSConfig: http3.ConfigureTLSConfig(b.Server(false).Clone())}
	go func() { <-ctx.Done(); srv.Close() }()
	ready()
	if err := srv.Serve(pc); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}
