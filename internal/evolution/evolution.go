// Package evolution measures what schema evolution does to messages in
// flight: a message of one version of the payload schema passes nodes of
// another, each decoding it into its own version's message and encoding
// that again, as a chain's nodes do, and what comes back is compared with
// what was sent, field by field.
//
// The versions are schema/hopbench/v1 (the payload schema every stack
// carries) and schema/hopbench/v2, v1 with the changes services make
// (Changes). Nothing here is declared per codec: an outcome is what the
// codec's own Marshal and Unmarshal did to the message.
package evolution

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/payload"
	_ "github.com/hopbench/hopbench/schema/hopbench/v2" // registers v2's messages
)

// Version is a version of the payload schema.
type Version string

// The payload schema's versions.
const (
	V1 Version = "v1" // schema/hopbench/v1: what every stack carries
	V2 Version = "v2" // schema/hopbench/v2: v1 with Changes made
)

// Versions are the known versions, oldest first.
var Versions = []Version{V1, V2}

// ParseVersion reads "v1" or "v2".
func ParseVersion(s string) (Version, error) {
	for _, v := range Versions {
		if string(v) == strings.TrimSpace(s) {
			return v, nil
		}
	}
	return "", fmt.Errorf("schema version %q: want v1 or v2", s)
}

// index is v's place in a Change's Field.
func (v Version) index() int {
	if v == V1 {
		return 0
	}
	return 1
}

// Path is the versions a message meets: its sender's first, then each
// node's of a chain, the entry node first.
type Path []Version

// MaxPath bounds a path: a sender and a chain of up to 8 nodes.
const MaxPath = 9

// ParsePath reads a path such as "v2,v1,v2": a sender of v2, whose message
// an entry node of v1 passes to a node of v2.
func ParsePath(s string) (Path, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > MaxPath {
		return nil, fmt.Errorf("schema path %q: want the sender's version and then each node's, 2 to %d in all, such as \"v2,v1,v2\"", s, MaxPath)
	}
	p := make(Path, len(parts))
	for i, part := range parts {
		v, err := ParseVersion(part)
		if err != nil {
			return nil, fmt.Errorf("schema path %q: %w", s, err)
		}
		p[i] = v
	}
	return p, nil
}

// ParseSchema reads an experiment's schema entry: one version ("v2": the
// sender and every node of it) as a path of one, or a path ("v2,v1,v2").
func ParseSchema(s string) (Path, error) {
	if !strings.Contains(s, ",") {
		v, err := ParseVersion(s)
		if err != nil {
			return nil, fmt.Errorf("%w, or a path such as \"v2,v1,v2\" (the sender's version, then each node's)", err)
		}
		return Path{v}, nil
	}
	return ParsePath(s)
}

// For is the path a sender and n nodes take: a path of one version gives
// each that version; a longer path must name exactly n+1.
func (p Path) For(n int) (Path, error) {
	if len(p) == 1 {
		out := make(Path, n+1)
		for i := range out {
			out[i] = p[0]
		}
		return out, nil
	}
	if len(p) != n+1 {
		return nil, fmt.Errorf("schema path %q names a sender and %d nodes, and the topology has %d", p, len(p)-1, n)
	}
	return p, nil
}

// Chain is the topology a path of more than one version fixes: direct for
// a sender and one node, chain:N for N nodes; "" for a path of one.
func (p Path) Chain() string {
	switch len(p) {
	case 0, 1:
		return ""
	case 2:
		return "direct"
	}
	return fmt.Sprintf("chain:%d", len(p)-1)
}

// Sender is the version the sender speaks (v1 for an empty path).
func (p Path) Sender() Version {
	if len(p) == 0 {
		return V1
	}
	return p[0]
}

// Node is the version node i speaks, the entry node 0 (v1 beyond the path).
func (p Path) Node(i int) Version {
	if i+1 >= len(p) {
		return V1
	}
	return p[i+1]
}

// Has says whether v is one of the path's versions.
func (p Path) Has(v Version) bool { return slices.Contains(p, v) }

func (p Path) String() string {
	s := make([]string, len(p))
	for i, v := range p {
		s[i] = string(v)
	}
	return strings.Join(s, ",")
}

// Mixed says whether the path holds more than one version.
func (p Path) Mixed() bool {
	for _, v := range p[1:] {
		if v != p[0] {
			return true
		}
	}
	return false
}

// hops are the versions that decode the message in turn: each node on the
// way to the last, the last once (it echoes), each on the way back, and
// the sender, which reads the reply.
func (p Path) hops() []Version {
	nodes := p[1:]
	out := append([]Version(nil), nodes...)
	for i := len(nodes) - 2; i >= 0; i-- {
		out = append(out, nodes[i])
	}
	return append(out, p[0])
}

// NewMessage is an empty message of the model's type in version v.
func NewMessage(model string, v Version) (proto.Message, error) {
	if _, err := ParseVersion(string(v)); err != nil {
		return nil, err
	}
	m, err := payload.Lookup(model)
	if err != nil {
		return nil, err
	}
	return v.New(m), nil
}

// Message is the model's message of count items from seed in version v
// (Version.Message).
func Message(model string, v Version, count int, seed uint64) (proto.Message, error) {
	m, err := payload.Lookup(model)
	if err != nil {
		return nil, err
	}
	return v.Message(m, count, seed)
}
