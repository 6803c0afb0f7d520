package grpc_test

import (
	"context"
	"strings"
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
		{Name: "tls", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, Large: true},
		{Name: "mtls+gzip", Config: transport.Config{Compression: "gzip", ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
	} {
		v.Transport = "grpc"
		transporttest.Run(t, v)
	}
}

func TestRefusesWhatGRPCCannotCarry(t *testing.T) {
	tr, _ := transport.Lookup("grpc")
	for _, c := range []struct {
		cfg  transport.Config
		want string
	}{
		{transport.Config{Codec: "json"}, `grpc carries proto bodies only, not "json"`},
		{transport.Config{Compression: "zstd"}, `gzip only`},
	} {
		_, err := tr.Listen(context.Background(), "127.0.0.1:0", c.cfg, transport.Handler{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Listen(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
}
