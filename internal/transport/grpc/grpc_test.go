package grpc_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/grpc"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
)

func TestConformance(t *testing.T) {
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []transporttest.Variant{
		{Name: "plain", Large: true},
		{Name: "gzip", Config: transport.Config{Compression: "gzip"}},
		{Name: "tls", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}},
		{Name: "mtls+gzip", Config: transport.Config{Compression: "gzip", ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
		{Name: "tls/emulated-network", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, Network: transporttest.Emulated},
	} {
		v.Transport = "grpc"
		transporttest.Run(t, v)
	}
	// grpc-stream: each client's calls over one bidirectional stream.
	for _, v := range []transporttest.Variant{
		{Name: "stream", Large: true},
		{Name: "stream+mtls+gzip", Config: transport.Config{Compression: "gzip", ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
		{Name: "stream/emulated-network", Network: transporttest.Emulated},
	} {
		v.Transport = "grpc-stream"
		transporttest.Run(t, v)
	}
}

func TestRefusesWhatGRPCCannotCarry(t *testing.T) {
	transporttest.CheckRefusals(t, "grpc", []transporttest.Refusal{
		{Config: transport.Config{Codec: "json"}, Want: `grpc carries proto bodies only, not "json"`},
		{Config: transport.Config{Compression: "zstd"}, Want: `gzip only`},
	})
}

// Reflection lists a user's message's service beside Hop and serves the
// files that describe it, so grpcurl and ghz call it without the .proto.
func TestReflectionDescribesAUsersService(t *testing.T) {
	transporttest.CheckReflection(t, "grpc")
}
