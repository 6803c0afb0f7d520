package connect_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/connect"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
)

// Each stack of the family passes the conformance suite: plain, gzip,
// TLS and mutual TLS, over HTTP/1.1 and HTTP/2 (connect-grpc: HTTP/2
// always), and under an emulated network.
func TestConformance(t *testing.T) {
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"connect", "grpcweb", "connect-grpc"} {
		t.Run(name, func(t *testing.T) {
			for _, v := range []transporttest.Variant{
				{Name: "plain", Large: true},
				{Name: "gzip", Config: transport.Config{Compression: "gzip"}},
				{Name: "h2c", Config: transport.Config{HTTP2: true}},
				{Name: "tls", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, Large: true},
				{Name: "mtls+h2+gzip", Config: transport.Config{HTTP2: true, Compression: "gzip", ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
				{Name: "tls/emulated-network", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, Network: transporttest.Emulated},
			} {
				v.Transport = name
				transporttest.Run(t, v)
			}
		})
	}
}

func TestRefusesWhatTheFamilyCannotCarry(t *testing.T) {
	for _, name := range []string{"connect", "grpcweb", "connect-grpc"} {
		transporttest.CheckRefusals(t, name, []transporttest.Refusal{
			{Config: transport.Config{Codec: "json"}, Want: name + ` carries proto bodies only, not "json"`},
			{Config: transport.Config{Compression: "zstd"}, Want: `gzip only`},
		})
	}
}
