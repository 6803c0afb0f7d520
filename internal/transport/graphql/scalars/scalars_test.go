package scalars

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/timestamppb"
)

func TestTimestampRoundTripsTheJSONCodecsForm(t *testing.T) {
	want := &timestamppb.Timestamp{Seconds: 1693235196, Nanos: 681172883}
	var buf bytes.Buffer
	MarshalTimestamp(want).MarshalGQL(&buf)
	if buf.String() != `{"seconds":1693235196,"nanos":681172883}` {
		t.Fatalf("marshalled %s", buf.String())
	}
	var v any
	dec := json.NewDecoder(&buf)
	dec.UseNumber()
	dec.Decode(&v)
	got, err := UnmarshalTimestamp(v)
	if err != nil || got.Seconds != want.Seconds || got.Nanos != want.Nanos {
		t.Fatalf("UnmarshalTimestamp = %v, %v", got, err)
	}
}

func TestBadScalarsAreRefusedWithAReason(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"timestamp string", second(UnmarshalTimestamp("2023-01-01")), "want an object {seconds, nanos}"},
		{"timestamp fraction", second(UnmarshalTimestamp(map[string]any{"seconds": 1.5})), "want a whole number"},
		{"timestamp nanos range", second(UnmarshalTimestamp(map[string]any{"nanos": json.Number("1000000000")})), "out-of-range field nanos"},
		{"timestamp unknown field", second(UnmarshalTimestamp(map[string]any{"minutes": json.Number("1")})), "unknown or out-of-range field minutes"},
		{"bytes number", second(UnmarshalBytes(12)), "want a base64 string"},
		{"bytes not base64", second(UnmarshalBytes("%%%")), "illegal base64"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestFloat32KeepsItsPrecision(t *testing.T) {
	var buf bytes.Buffer
	MarshalFloat32(5129.53).MarshalGQL(&buf)
	if buf.String() != "5129.53" {
		t.Errorf("MarshalFloat32(5129.53) wrote %s", buf.String())
	}
	if f, err := UnmarshalFloat32(json.Number("5129.53")); err != nil || f != 5129.53 {
		t.Errorf("UnmarshalFloat32 = %v, %v", f, err)
	}
}
