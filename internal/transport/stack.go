package transport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/codec"
)

// Stack is how two services talk: a technology with its body codec and
// compression, written like rest+proto+gzip. HTTP version and TLS are
// options of the run, not of the name.
type Stack struct {
	Transport   string
	Codec       string
	Compression string
}

// String is the canonical name: technology, then codec and compression
// when they are not the technology's defaults.
func (s Stack) String() string {
	name := s.Transport
	if t, err := Lookup(s.Transport); err == nil && s.Codec != t.Caps().Codecs[0] {
		name += "+" + s.Codec
	}
	if s.Compression != "none" {
		name += "+" + s.Compression
	}
	return name
}

// ParseStack reads tech[+codec][+compression], e.g. rest, rest+proto,
// rest+json+gzip, grpc+gzip. Parts after the technology may come in either
// order; missing ones take the technology's defaults.
func ParseStack(s string) (Stack, error) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "+")
	t, err := Lookup(parts[0])
	if err != nil {
		return Stack{}, fmt.Errorf("stack %q: %w", s, err)
	}
	codecs := t.Caps().Codecs
	st := Stack{Transport: t.Name(), Codec: codecs[0], Compression: "none"}
	var sawCodec, sawCompression bool
	for _, p := range parts[1:] {
		switch {
		case slices.Contains(codec.Names(), p) && !sawCodec:
			st.Codec, sawCodec = p, true
		case slices.Contains(codec.CompressionNames(), p) && !sawCompression:
			st.Compression, sawCompression = p, true
		default:
			return Stack{}, fmt.Errorf("stack %q: %q is not a codec (%s) or compression (%s), or is given twice",
				s, p, strings.Join(codecs, ", "), strings.Join(CompressionsOf(t), ", "))
		}
	}
	if err := refuseConfig(t, st.Codec, st.Compression); err != nil {
		return Stack{}, fmt.Errorf("stack %q: %w", s, err)
	}
	return st, nil
}

// Config returns a transport Config for the stack's codec and compression.
func (s Stack) Config() Config {
	return Config{Codec: s.Codec, Compression: s.Compression}
}
