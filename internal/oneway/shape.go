package oneway

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hopbench/hopbench/internal/specyaml"
)

// Shape is a one-way run's consumers as a spec or hopbench load's flags
// give them, and as a run's config records them; Config is the shape as
// Driver takes it.
type Shape struct {
	// Consumers share each group; Groups each take every message (1: a
	// work queue; more: a fan-out).
	Consumers int `json:"consumers" yaml:"consumers"`
	Groups    int `json:"groups,omitempty" yaml:"groups"`
	// Drain bounds the wait for the consumers after the last publish
	// (default: the run's timeout); Crash drops a consumer this long into
	// the measured window, as a crash would.
	Drain specyaml.Duration `json:"drain,omitempty" yaml:"drain"`
	Crash specyaml.Duration `json:"crash,omitempty" yaml:"crash"`
	// Encode is once (the default: the body encoded once and sent every
	// time) or each (every publish encodes the message anew, as a
	// producer serializing each record does).
	Encode string `json:"encode,omitempty" yaml:"encode"`
}

// The one-way encodings: the body encoded once, or every message.
const (
	EncodeOnce = "once"
	EncodeEach = "each"
)

// CheckEncode refuses an encoding other than once and each.
func CheckEncode(e string) error {
	if e != EncodeOnce && e != EncodeEach {
		return fmt.Errorf("%q: want %s (the body encoded once, the default) or %s (every message encoded anew)", e, EncodeOnce, EncodeEach)
	}
	return nil
}

// Config is the shape as Driver takes it.
func (o *Shape) Config() Config {
	return Config{Consumers: o.Consumers, Groups: o.Groups, Drain: time.Duration(o.Drain), Abort: time.Duration(o.Crash),
		EncodeEach: o.Encode == EncodeEach}
}

// String names the shape in a case: "oneway 2 consumers", "oneway fan-out
// 3×1", with its stack settings, which a one-way case compares.
func (o *Shape) String(options map[string]string) string {
	s := fmt.Sprintf("oneway %d consumers", max(o.Consumers, 1))
	if o.Groups > 1 {
		s = fmt.Sprintf("oneway fan-out %d×%d", o.Groups, max(o.Consumers, 1))
	}
	if o.Crash > 0 {
		s += " crash@" + time.Duration(o.Crash).String()
	}
	if o.Encode == EncodeEach {
		s += " encode each"
	}
	for _, k := range slices.Sorted(maps.Keys(options)) {
		s += " " + k + "=" + options[k]
	}
	return s
}
