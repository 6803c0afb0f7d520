package grpc_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/hopbench/hopbench/internal/transport"
)

// What a gRPC node answers to bad input, as a raw HTTP/2 client sends it.
// A malformed Payload (the message parses as gRPC, not as a model) is the
// caller's mistake: InvalidArgument, from hopbench. A truncated gRPC frame
// (its length prefix promises more bytes than the stream carries) is
// answered by grpc-go: the handler's first read of the request gets the
// error after grpc-go has already written the status, Internal, so
// whatever the handler returns goes nowhere (grpc-go 1.85, serverStream's
// RecvMsg). That is the gRPC specification's rule for a request a library
// cannot parse ("Error parsing request proto: INTERNAL",
// doc/statuscodes.md); hopbench keeps the library's answer rather than
// parse gRPC's framing itself.
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

// A grpc-go client that sends a message cut short (a Payload whose model
// field promises more bytes than follow) gets InvalidArgument, naming it.
func TestATruncatedMessageIsInvalidArgument(t *testing.T) {
	tr, err := transport.Lookup("grpc")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{}, transport.Handler{Bytes: func(context.Context, *transport.Request) ([]byte, error) {
		t.Error("a truncated message reached the service")
		return nil, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conn, err := grpc.NewClient("passthrough:///"+srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	truncated := []byte{0x0a, 10, 0x0a, 0x02} // field 1 (user), 10 bytes promised, 2 sent
	var reply []byte
	err = conn.Invoke(context.Background(), "/hopbench.v1.Hop/Echo", &truncated, &reply, grpc.ForceCodecV2(bytesCodec{}))
	if st, _ := status.FromError(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "malformed Payload") {
		t.Errorf("a truncated message: %v, want InvalidArgument naming the malformed Payload", err)
	}
}

// bytesCodec sends and receives messages as the bytes they are.
type bytesCodec struct{}

func (bytesCodec) Name() string { return "proto" }

func (bytesCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (bytesCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}
