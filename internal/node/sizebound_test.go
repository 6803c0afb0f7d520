package node_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/transport"
)

// The count: 345922 ints are 2.31 MB of JSON, which a reply size
// estimated from the first 64 values (all of one or two digits) put under
// 1 MiB, so the node generated and sent them. Its bound is over the limit:
// refused before it is made, plain or compressed; a count that fits is
// served.
func TestIntsOverTheLimitAreRefusedBeforeTheyAreMade(t *testing.T) {
	for _, stack := range []string{"rest+json", "rest+json+gzip", "rest+proto+zstd"} {
		t.Run(stack, func(t *testing.T) {
			st, _ := transport.ParseStack(stack)
			cl := limitedNode(t, st, 1<<20)
			c, _ := codec.Lookup(st.Codec)
			z, _ := codec.LookupCompression(st.Compression)
			get := func(count int) error {
				_, err := cl.Call(context.Background(), &transport.Request{Op: transport.OpGet, Model: "ints", Count: count, Codec: c, Compression: z})
				return err
			}
			over := 345_922
			if st.Codec == "proto" {
				over = 400_000 // about 3 bytes each
			}
			if err := get(over); transport.CodeOf(err) != transport.CodeTooLarge || !strings.Contains(err.Error(), "over the node's limit of 1048576 bytes") {
				t.Errorf("get ints×%d: %v, want refused as too large naming the limit", over, err)
			}
			if err := get(100_000); err != nil {
				t.Errorf("get ints×100000 (well under 1 MiB): %v", err)
			}
		})
	}
}

// limitedNode starts a node of st whose bodies are limited to 1 MiB and
// dials it with a client whose replies may be clientMax bytes (0: the
// default); both end with the test.
func limitedNode(t *testing.T, st transport.Stack, clientMax int) transport.Client {
	t.Helper()
	n, err := node.Start(context.Background(), node.Config{Stack: st, Transport: transport.Config{MaxBytes: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	tr, _ := transport.Lookup(st.Transport)
	cl, err := tr.Dial(context.Background(), n.Addr(), transport.Config{Codec: st.Codec, Compression: st.Compression, MaxBytes: clientMax})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}
