package graphql_test

import (
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
	transporttest.CheckRefusals(t, "graphql", []transporttest.Refusal{
		{Config: transport.Config{Codec: "proto"}, Want: `graphql carries JSON only, not "proto"`},
		{Config: transport.Config{Compression: "gzip"}, Want: `without compression`},
	})
}
