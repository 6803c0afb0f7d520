package ws_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
	_ "github.com/hopbench/hopbench/internal/transport/ws"
)

// ws passes the conformance suite in every codec, with gzip and zstd,
// with TLS and mutual TLS, and under an emulated network: every call of a
// client over its one connection, 96 of them in flight at once.
func TestConformance(t *testing.T) {
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	variants := []transporttest.Variant{
		{Name: "gzip", Config: transport.Config{Compression: "gzip"}},
		{Name: "zstd", Config: transport.Config{Compression: "zstd"}},
		{Name: "tls", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}},
		{Name: "mtls+gzip", Config: transport.Config{Compression: "gzip", ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
		{Name: "emulated-network", Network: transporttest.Emulated},
	}
	for _, c := range codec.Names() {
		variants = append(variants, transporttest.Variant{Name: c, Config: transport.Config{Codec: c}, Large: c == "proto"})
	}
	for _, v := range variants {
		v.Transport = "ws"
		transporttest.Run(t, v)
	}
}

// A client outlives its server: once the connection ends, its next call
// opens another (grpc-stream's client does the same, streamed.Reopening).
func TestAClientCallsAServerStartedAgainOnANewConnection(t *testing.T) {
	ctx := context.Background()
	tr, err := transport.Lookup("ws")
	if err != nil {
		t.Fatal(err)
	}
	h := transport.Handler{Bytes: func(_ context.Context, req *transport.Request) ([]byte, error) { return req.Body, nil }}
	srv, err := tr.Listen(ctx, "127.0.0.1:0", transport.Config{}, h)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tr.Dial(ctx, srv.Addr(), transport.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	json, err1 := codec.Lookup("json")
	none, err2 := codec.LookupCompression("")
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	call := func() error {
		_, err := c.Call(ctx, &transport.Request{Op: transport.OpEcho, Body: []byte("hop"), Codec: json, Compression: none})
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if srv, err = tr.Listen(ctx, srv.Addr(), transport.Config{}, h); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		err := call()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no call answered by the server started again: %v", err)
		}
	}
}
