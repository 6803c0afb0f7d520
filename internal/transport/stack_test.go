package transport_test

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/graphql"
	_ "github.com/hopbench/hopbench/internal/transport/grpc"
	_ "github.com/hopbench/hopbench/internal/transport/rest"
)

func TestParseStack(t *testing.T) {
	for _, c := range []struct {
		in   string
		want transport.Stack
		name string
	}{
		{"rest", transport.Stack{Transport: "rest", Codec: "json", Compression: "none"}, "rest"},
		{"rest+proto", transport.Stack{Transport: "rest", Codec: "proto", Compression: "none"}, "rest+proto"},
		{"REST+gzip+proto", transport.Stack{Transport: "rest", Codec: "proto", Compression: "gzip"}, "rest+proto+gzip"},
		{"rest+json+zstd", transport.Stack{Transport: "rest", Codec: "json", Compression: "zstd"}, "rest+zstd"},
		{"grpc+gzip", transport.Stack{Transport: "grpc", Codec: "proto", Compression: "gzip"}, "grpc+gzip"},
	} {
		got, err := transport.ParseStack(c.in)
		if err != nil || got != c.want || got.String() != c.name {
			t.Errorf("ParseStack(%q) = %+v (%s), %v; want %+v (%s)", c.in, got, got, err, c.want, c.name)
		}
	}
}

func TestParseStackErrorsSayWhatIsKnown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"soap", `unknown stack technology "soap" (known: graphql, grpc, grpc-stream, rest, rest-h3)`},
		{"grpc+json", `grpc carries proto bodies only, not "json"`},
		{"grpc+zstd", `grpc compresses bodies with gzip only, not "zstd"`},
		{"graphql+gzip", `graphql compresses no bodies, not "gzip"`},
		{"rest+xml", `"xml" is not a codec (json, json-fast, proto, msgpack, cbor, avro, avro-resolved) or compression (none, gzip, zstd)`},
		{"rest+json+proto", `"proto" is not a codec`},
	} {
		_, err := transport.ParseStack(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseStack(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

func TestCodeNamedInvertsString(t *testing.T) {
	for _, c := range []transport.Code{transport.CodeInternal, transport.CodeBadRequest, transport.CodeTooLarge,
		transport.CodeUnavailable, transport.CodeDeadline, transport.CodeNotFound} {
		if got, ok := transport.CodeNamed(c.String()); !ok || got != c {
			t.Errorf("CodeNamed(%q) = %v, %v", c.String(), got, ok)
		}
	}
	if _, ok := transport.CodeNamed("teapot"); ok {
		t.Error("CodeNamed(teapot) found a code")
	}
}
