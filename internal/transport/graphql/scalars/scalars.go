// Package scalars marshals the GraphQL scalars that have no gqlgen
// built-in, in the same JSON the json codec writes, so a GraphQL reply
// decodes with the json codec into the same message.
package scalars

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"google.golang.org/protobuf/types/known/timestamppb"

	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// MarshalTimestamp writes {"seconds":S,"nanos":N}, or null.
func MarshalTimestamp(t *timestamppb.Timestamp) graphql.Marshaler {
	if t == nil {
		return graphql.Null
	}
	return graphql.WriterFunc(func(w io.Writer) {
		fmt.Fprintf(w, `{"seconds":%d,"nanos":%d}`, t.Seconds, t.Nanos)
	})
}

// UnmarshalTimestamp reads {"seconds":S,"nanos":N}, either omitted.
func UnmarshalTimestamp(v any) (*timestamppb.Timestamp, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("Timestamp: want an object {seconds, nanos}, got %T", v)
	}
	t := &timestamppb.Timestamp{}
	for key, val := range m {
		n, err := wholeNumber(val)
		switch {
		case err != nil:
			return nil, fmt.Errorf("Timestamp.%s: %w", key, err)
		case key == "seconds":
			t.Seconds = n
		case key == "nanos" && n >= 0 && n < 1e9:
			t.Nanos = int32(n)
		default:
			return nil, fmt.Errorf("Timestamp: unknown or out-of-range field %s", key)
		}
	}
	return t, nil
}

func wholeNumber(v any) (int64, error) {
	switch n := v.(type) {
	case json.Number:
		return n.Int64()
	case int64:
		return n, nil
	case int:
		return int64(n), nil
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), nil
		}
	}
	return 0, fmt.Errorf("want a whole number, got %v", v)
}

// MarshalFloat32 writes a float32 as encoding/json does.
func MarshalFloat32(f float32) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		io.WriteString(w, strconv.FormatFloat(float64(f), 'g', -1, 32))
	})
}

// UnmarshalFloat32 reads a number.
func UnmarshalFloat32(v any) (float32, error) {
	f, err := graphql.UnmarshalFloat(v)
	return float32(f), err
}

// MarshalBytes writes base64, as encoding/json does for []byte.
func MarshalBytes(b []byte) graphql.Marshaler {
	return graphql.MarshalString(base64.StdEncoding.EncodeToString(b))
}

// UnmarshalBytes reads base64.
func UnmarshalBytes(v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("Bytes: want a base64 string, got %T", v)
	}
	return base64.StdEncoding.DecodeString(s)
}

// MarshalUnitType writes the enum's number, as encoding/json does.
func MarshalUnitType(u pb.UnitType) graphql.Marshaler { return graphql.MarshalInt32(int32(u)) }

// UnmarshalUnitType reads the enum's number.
func UnmarshalUnitType(v any) (pb.UnitType, error) {
	n, err := graphql.UnmarshalInt32(v)
	return pb.UnitType(n), err
}
