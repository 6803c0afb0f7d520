package hopframe

import (
	"bytes"
	"testing"
)

// The gRPC frame parser takes any bytes without panicking, and what it
// accepts is one model's field, which wraps and unwraps to the same model
// and body (the bytes may differ: protobuf allows a length written in
// more bytes than it needs, as the fuzzer found).
func FuzzUnwrap(f *testing.F) {
	good, _ := wrap("user", []byte{0x0a, 0x02, 0x08, 0x01})
	f.Add(append(good.Header, good.Body...))
	f.Add([]byte{})
	f.Add([]byte{0x0a})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		model, body, err := unwrap(b)
		if err != nil {
			return
		}
		again, err := wrap(model, body)
		if err != nil {
			t.Fatalf("unwrapped model %q does not wrap: %v", model, err)
		}
		m2, b2, err := unwrap(append(again.Header, again.Body...))
		if err != nil || m2 != model || !bytes.Equal(b2, body) {
			t.Fatalf("%q unwrapped to %s and %d bytes, which wrap and unwrap to %s and %d bytes (%v)", b, model, len(body), m2, len(b2), err)
		}
	})
}
