package rest_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/rest"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
)

// TestConformance covers every codec, gzip and zstd, HTTP/1.1 and HTTP/2,
// TLS off and on (and mutual), each dimension at least once.
func TestConformance(t *testing.T) {
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg := func(c transport.Config, mutual bool) transport.Config {
		c.ServerTLS, c.ClientTLS = b.Server(mutual), b.Client(mutual)
		return c
	}
	variants := []transporttest.Variant{
		{Name: "json/h1", Config: transport.Config{Codec: "json"}, Large: true},
		{Name: "json-fast/h1", Config: transport.Config{Codec: "json-fast"}},
		{Name: "proto/h1", Config: transport.Config{Codec: "proto"}},
		{Name: "msgpack/h1", Config: transport.Config{Codec: "msgpack"}},
		{Name: "cbor/h1", Config: transport.Config{Codec: "cbor"}},
		{Name: "avro/h1", Config: transport.Config{Codec: "avro"}},
		{Name: "json+gzip/h1", Config: transport.Config{Codec: "json", Compression: "gzip"}},
		{Name: "proto+zstd/h1", Config: transport.Config{Codec: "proto", Compression: "zstd"}},
		{Name: "proto/h2c", Config: transport.Config{Codec: "proto", HTTP2: true}, Large: true},
		{Name: "json+gzip/h2c", Config: transport.Config{Codec: "json", Compression: "gzip", HTTP2: true}},
		{Name: "json/h1+tls", Config: tlsCfg(transport.Config{Codec: "json"}, false)},
		{Name: "proto/h2+tls", Config: tlsCfg(transport.Config{Codec: "proto", HTTP2: true}, false), Large: true},
		{Name: "proto+zstd/h2+mtls", Config: tlsCfg(transport.Config{Codec: "proto", Compression: "zstd", HTTP2: true}, true)},
		{Name: "json+gzip/h1/emulated-network", Config: transport.Config{Codec: "json", Compression: "gzip"}, Network: transporttest.Emulated},
		{Name: "proto/h2+tls/emulated-network", Config: tlsCfg(transport.Config{Codec: "proto", HTTP2: true}, false), Network: transporttest.Emulated},
	}
	for _, v := range variants {
		v.Transport = "rest"
		transporttest.Run(t, v)
	}
}

// rest-h3 passes the suite over HTTP/3 (TLS 1.3 always, mutual too) in
// every codec, with gzip and zstd, and with its datagrams shaped by an
// emulated network; its UDP bytes are counted.
func TestConformanceH3(t *testing.T) {
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	variants := []transporttest.Variant{
		{Name: "json+gzip", Config: transport.Config{Codec: "json", Compression: "gzip"}},
		{Name: "proto+zstd/mtls", Config: transport.Config{Codec: "proto", Compression: "zstd", ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
		{Name: "proto/emulated-network", Config: transport.Config{Codec: "proto"}, Network: transporttest.Emulated},
	}
	for _, c := range []string{"json", "json-fast", "proto", "msgpack", "cbor", "avro"} {
		variants = append(variants, transporttest.Variant{Name: c, Config: transport.Config{Codec: c}, Large: c == "proto"})
	}
	for _, v := range variants {
		if v.Config.ServerTLS == nil {
			v.Config.ServerTLS, v.Config.ClientTLS = b.Server(false), b.Client(false)
		}
		v.Transport = "rest-h3"
		transporttest.Run(t, v)
	}
}

func TestH3RefusesWhatQUICCannotCarry(t *testing.T) {
	transporttest.CheckRefusals(t, "rest-h3", []transporttest.Refusal{
		{Config: transport.Config{}, Want: "rest-h3 runs over QUIC, which needs TLS 1.3"},
	})
}
