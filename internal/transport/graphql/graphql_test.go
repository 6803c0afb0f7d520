package graphql_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/graphql"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
)

func TestConformance(t *testing.T) {
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []transporttest.Variant{
		{Name: "h1", Large: true},
		{Name: "h2c", Config: transport.Config{HTTP2: true}},
		{Name: "h2+mtls", Config: transport.Config{HTTP2: true, ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
	} {
		v.Transport = "graphql"
		transporttest.Run(t, v)
	}
}

func TestRefusesWhatItCannotCarry(t *testing.T) {
	tr, _ := transport.Lookup("graphql")
	for _, c := range []struct {
		cfg  transport.Config
		want string
	}{
		{transport.Config{Codec: "proto"}, `graphql carries JSON only, not "proto"`},
		{transport.Config{Compression: "gzip"}, `without compression`},
	} {
		_, err := tr.Listen(context.Background(), "127.0.0.1:0", c.cfg, transport.Handler{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Listen(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
}
