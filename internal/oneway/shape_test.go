package oneway

import (
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/specyaml"
)

// A shape names itself in a case with its stack settings, and goes to
// Driver as the Config it says.
func TestAShapeNamesItsCaseAndConfig(t *testing.T) {
	for _, c := range []struct {
		shape Shape
		want  string
	}{
		{Shape{}, "oneway 1 consumers"},
		{Shape{Consumers: 2}, "oneway 2 consumers"},
		{Shape{Consumers: 1, Groups: 3, Crash: specyaml.Duration(time.Second), Encode: EncodeEach}, "oneway fan-out 3×1 crash@1s encode each b=2 z=1"},
	} {
		opts := map[string]string{}
		if c.shape.Groups > 1 {
			opts = map[string]string{"z": "1", "b": "2"}
		}
		if got := c.shape.String(opts); got != c.want {
			t.Errorf("%+v: %q, want %q", c.shape, got, c.want)
		}
	}
	cfg := (&Shape{Consumers: 2, Drain: specyaml.Duration(time.Second), Crash: 2, Encode: EncodeEach}).Config()
	if cfg != (Config{Consumers: 2, Drain: time.Second, Abort: 2, EncodeEach: true}) {
		t.Errorf("config %+v", cfg)
	}
	if err := CheckEncode("twice"); err == nil || !strings.Contains(err.Error(), `"twice": want once`) {
		t.Errorf("encode twice: %v", err)
	}
	if CheckEncode(EncodeOnce) != nil || CheckEncode(EncodeEach) != nil {
		t.Error("once and each refused")
	}
}
