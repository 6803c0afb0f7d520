package wire_test

import (
	"context"
	"testing"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/grpc"
	_ "github.com/hopbench/hopbench/internal/transport/rest"
	"github.com/hopbench/hopbench/internal/wire"
)

func echoHandler(_ context.Context, req *transport.Request) ([]byte, error) { return req.Body, nil }

// callBytes makes one echo call of body through a counting dialer and
// returns what crossed the client's connection.
func callBytes(t *testing.T, stack string, cfg transport.Config, body []byte) wire.Totals {
	t.Helper()
	tr, _ := transport.Lookup(stack)
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", cfg, transport.Handler{Bytes: echoHandler})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	counter := &wire.Counter{}
	cfg.Dialer = &wire.Dialer{Counter: counter}
	cl, err := tr.Dial(context.Background(), srv.Addr(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c, _ := codec.Lookup("proto")
	z, _ := codec.LookupCompression("none")
	if _, err := cl.Call(context.Background(), &transport.Request{Op: transport.OpEcho, Model: "text", Codec: c, Compression: z, Body: body}); err != nil {
		t.Fatal(err)
	}
	return counter.Snapshot()
}

func TestCountsBodiesHeadersAndTLS(t *testing.T) {
	body := make([]byte, 10_000)
	body[0], body[1], body[2] = 0x0a, 0x8d, 0x4e // a valid Text: field 1, 9997 bytes
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, stack := range []string{"rest", "grpc"} {
		plain := callBytes(t, stack, transport.Config{Codec: "proto"}, body)
		if plain.Written <= int64(len(body)) || plain.Read <= int64(len(body)) || plain.Conns != 1 {
			t.Errorf("%s: wrote %d, read %d on %d connections for a %d-byte echo; want more than the body each way, one connection",
				stack, plain.Written, plain.Read, plain.Conns, len(body))
		}
		tls := callBytes(t, stack, transport.Config{Codec: "proto", ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, body)
		if tls.Written <= plain.Written || tls.Read <= plain.Read {
			t.Errorf("%s: TLS wrote %d and read %d, plain %d and %d; TLS records and the handshake must count",
				stack, tls.Written, tls.Read, plain.Written, plain.Read)
		}
	}
}
