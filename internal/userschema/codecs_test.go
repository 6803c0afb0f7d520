package userschema

import (
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
)

// Every codec but json-fast carries a user's message: what it decodes is
// equal (proto.Equal) to what was encoded, for lists drawn over several
// seeds and for the samples, whose fields the generator leaves alone
// (a oneof's string branch, a Timestamp from text).
func TestEveryCodecRoundTripsAUsersMessage(t *testing.T) {
	sampled := orders
	sampled.Samples = "../../examples/proto/orders.jsonl"
	roundTripsInEveryCodec(t, load(t, orders), load(t, sampled))
}

// A message recursive through a oneof and a list, reached through a
// singular field, a list and a map (telemetry.Span) round-trips too: Avro
// panicked in hamba/avro on an absent branch of the recursive value.
func TestEveryCodecRoundTripsARecursiveMessage(t *testing.T) {
	p := load(t, telemetry)
	roundTripsInEveryCodec(t, p, p)
}

var telemetry = Source{Files: []string{"testdata/telemetry/telemetry.proto"}, Message: "telemetry.Span"}

// roundTripsInEveryCodec round-trips generated lists over seeds 0-6 and
// then seed 7's of last.
func roundTripsInEveryCodec(t *testing.T, generated, last *Payload) {
	for _, c := range codec.All() {
		t.Run(c.Name(), func(t *testing.T) {
			for seed := range uint64(8) {
				p := generated
				if seed == 7 {
					p = last
				}
				in := p.Generate(rand.New(rand.NewPCG(seed, seed)), 20)
				data, err := c.Marshal(in)
				if c.Name() == "json-fast" {
					if err == nil {
						t.Fatal("json-fast encoded a message it has no Go struct for")
					}
					return
				}
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				out := dynamicpb.NewMessage(p.List)
				if err := c.Unmarshal(data, out); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if !proto.Equal(in, out) {
					t.Fatalf("seed %d: %s decoded a different message", seed, c.Name())
				}
			}
		})
	}
}

// The size bound a run checks before it starts (payload.SizeBound) holds
// for a user's message in every codec that carries it, whatever the seed:
// a count the node cannot take is refused before anything starts, and a
// count it can is never refused.
func TestTheSizeBoundHoldsForAUsersMessageInEveryCodec(t *testing.T) {
	for _, src := range []Source{orders, telemetry} {
		t.Run(src.Message, func(t *testing.T) { sizeBoundHolds(t, load(t, src).Model()) })
	}
}

func sizeBoundHolds(t *testing.T, m payload.Model) {
	for _, c := range codec.All() {
		if _, err := c.Marshal(m.New()); err != nil {
			continue // json-fast
		}
		b, err := m.SizeBound(c.Marshal)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		for _, count := range []int{0, 1, 7, 64, 500} {
			for seed := range uint64(5) {
				msg, err := m.Message(count, 1000+seed)
				if err != nil {
					t.Fatal(err)
				}
				data, err := c.Marshal(msg)
				if err != nil {
					t.Fatal(err)
				}
				if int64(len(data)) > b.Size(count) {
					t.Errorf("%s, %d orders, seed %d: %d bytes, over the bound %d", c.Name(), count, 1000+seed, len(data), b.Size(count))
				}
			}
		}
	}
}
