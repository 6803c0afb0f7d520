package ws_test

import (
	"testing"

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
		{Name: "tls", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, Large: true},
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
