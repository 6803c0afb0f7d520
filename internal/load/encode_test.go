package load_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/transport"
)

// Encode makes the request's body anew: the bytes Body sends, compressed
// as the stack compresses, read back as the message; a get has none.
func TestEncodeMakesTheBodyAnew(t *testing.T) {
	for _, stack := range []string{"kafka+proto", "kafka+json", "kafka+msgpack+gzip"} {
		st, err := transport.ParseStack(stack)
		if err != nil {
			t.Fatal(err)
		}
		tgt, err := load.DialTarget(context.Background(), load.TargetConfig{Stack: st, Addr: "kafka://127.0.0.1:1/", Op: transport.OpPost, Model: "user", Count: 5, OneWay: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := tgt.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := tgt.ReadBody(b); err != nil {
			t.Errorf("%s: the body made anew does not read back: %v", stack, err)
		}
		if !strings.HasSuffix(stack, "gzip") && !bytes.Equal(b, tgt.Body()) {
			t.Errorf("%s: Encode made %d bytes, Body sends %d: want the same bytes", stack, len(b), len(tgt.Body()))
		}
	}
	st, _ := transport.ParseStack("rest+json")
	tgt, err := load.DialTarget(context.Background(), load.TargetConfig{Stack: st, Addr: "127.0.0.1:1", Op: transport.OpGet, Model: "user", Count: 5, PerRequest: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tgt.Encode(); err == nil || !strings.Contains(err.Error(), "no body") {
		t.Errorf("Encode of a get: %v, want it refused: a get carries no body", err)
	}
}
