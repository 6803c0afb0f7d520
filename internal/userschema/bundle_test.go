package userschema

import (
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
)

// A payload bundled for another host and unpacked there generates the
// same messages, from its fill or its samples: its files (imports across
// directories included, Google's standard imports left out) and samples
// travel, not their paths.
func TestABundleUnpackedElsewhereMakesTheSameMessages(t *testing.T) {
	filled := orders
	filled.Fill = &Fill{Strings: Range{3, 5}, Repeated: Range{2, 2}, Maps: Range{1, 4}, Bytes: Range{1, 8}, Depth: 2}
	sampled := orders
	sampled.Samples = "../../examples/proto/orders.jsonl"
	for name, src := range map[string]Source{"fill": filled, "samples": sampled} {
		t.Run(name, func(t *testing.T) {
			p := load(t, src)
			b, err := p.Bundle()
			if err != nil {
				t.Fatal(err)
			}
			for f := range b.Files {
				if strings.HasPrefix(f, "google/protobuf/") {
					t.Errorf("the bundle carries %s, a standard import", f)
				}
			}
			if len(b.Files) < 2 {
				t.Errorf("the bundle carries %d files, want orders.proto and its import", len(b.Files))
			}
			there, err := b.Unpack(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			q := load(t, there)
			for seed := range uint64(3) {
				// Two compilations' descriptors differ: compare the bytes.
				det := proto.MarshalOptions{Deterministic: true}
				a, _ := det.Marshal(p.Generate(rand.New(rand.NewPCG(seed, 1)), 5))
				c, _ := det.Marshal(q.Generate(rand.New(rand.NewPCG(seed, 1)), 5))
				if len(a) == 0 || string(a) != string(c) {
					t.Fatalf("seed %d: the unpacked payload makes other messages", seed)
				}
			}
			if p.Fingerprint() != q.Fingerprint() {
				t.Error("the unpacked payload's fingerprint differs")
			}
		})
	}
}

// A bundle whose file names would leave the directory it is unpacked in,
// or that passes the bounds, is refused by name.
func TestABundleThatWouldLeaveItsDirectoryIsRefused(t *testing.T) {
	for _, b := range []Bundle{
		{Files: map[string][]byte{"../evil.proto": []byte("syntax = \"proto3\";")}, Message: "M"},
		{Files: map[string][]byte{"/etc/evil.proto": nil}, Message: "M"},
		{Files: map[string][]byte{"big.proto": make([]byte, MaxFileBytes+1)}, Message: "M"},
	} {
		if _, err := b.Unpack(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a relative import name") {
			t.Errorf("%v: %v, want it refused", len(b.Files), err)
		}
	}
}
