package grpc_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"net"
	"net/http"
	"strconv"
	"testing"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"

	"github.com/hopbench/hopbench/internal/transport"
)

// What a gRPC node answers to bad input, as a raw HTTP/2 client sends it.
// A malformed Payload (the message parses as gRPC, not as a model) is the
// caller's mistake: InvalidArgument, from hopbench. A truncated gRPC frame
// (its length prefix promises more bytes than the stream carries) never
// reaches hopbench: grpc-go answers it Internal, as the gRPC specification
// has a library do for a request it cannot parse ("Error parsing request
// proto: INTERNAL", doc/statuscodes.md); hopbench keeps the library's answer
// rather than parse gRPC's framing itself.
func TestBadInputAnswersItsStatus(t *testing.T) {
	tr, err := transport.Lookup("grpc")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{}, transport.Handler{Bytes: func(context.Context, *transport.Request) ([]byte, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := &http.Client{Transport: &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}}
	frame := func(declared int, body []byte) []byte {
		b := make([]byte, 5, 5+len(body))
		binary.BigEndian.PutUint32(b[1:], uint32(declared))
		return append(b, body...)
	}
	for _, c := range []struct {
		name string
		body []byte
		want codes.Code
	}{
		{"a malformed Payload", frame(3, []byte{0xff, 0xff, 0xff}), codes.InvalidArgument},
		{"a truncated frame", frame(100, []byte{0x0a, 0x02}), codes.Internal},
	} {
		req, _ := http.NewRequest("POST", "http://"+srv.Addr()+"/hopbench.v1.Hop/Echo", bytes.NewReader(c.body))
		req.Header.Set("Content-Type", "application/grpc")
		req.Header.Set("TE", "trailers")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		resp.Body.Close()
		got := resp.Trailer.Get("Grpc-Status")
		if got == "" {
			got = resp.Header.Get("Grpc-Status")
		}
		if got != strconv.Itoa(int(c.want)) {
			t.Errorf("%s: grpc-status %q (%s), want %d (%s)", c.name, got, resp.Trailer.Get("Grpc-Message")+resp.Header.Get("Grpc-Message"), c.want, c.want)
		} else {
			t.Logf("%s: %s: %s", c.name, c.want, resp.Trailer.Get("Grpc-Message")+resp.Header.Get("Grpc-Message"))
		}
	}
}
