package hopframe

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

func benchPayload(b *testing.B) []byte {
	m, _ := payload.Generate("payment", 10, payload.DefaultSeed)
	body, err := codec.ProtoJSON.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	return (&Frame{Header: []byte(`{"payment":`), Body: body, Tail: []byte("}")}).Bytes()
}

func BenchmarkUnwrapJSON(b *testing.B) {
	in := benchPayload(b)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, _, err := unwrapJSON(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeModelJSON(b *testing.B) {
	in := benchPayload(b)
	_, body, _ := unwrapJSON(in)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if err := codec.ProtoJSON.Unmarshal(body, &pb.PaymentList{}); err != nil {
			b.Fatal(err)
		}
	}
}

// Whatever a caller sends as a Payload's JSON is read without panicking;
// what is taken is a Payload field and a non-empty part of the input.
func FuzzUnwrapJSON(f *testing.F) {
	f.Add([]byte(`{"user":{"users":[]}}`))
	f.Add([]byte(` { "text" : {"text":"a"} } `))
	f.Add([]byte(`{"user":{},"text":{}}`))
	f.Add([]byte(`{"nope":1}`))
	f.Add([]byte(`{"`))
	f.Fuzz(func(t *testing.T, in []byte) {
		model, body, err := unwrapJSON(in)
		if err != nil {
			return
		}
		if payloadFields.ByName(protoreflect.Name(model)) == nil || len(body) == 0 || !bytes.Contains(in, body) {
			t.Fatalf("%q: took model %q and body %q", in, model, body)
		}
	})
}
