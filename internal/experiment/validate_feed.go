package experiment

import (
	"fmt"
	"slices"

	"github.com/hopbench/hopbench/internal/transport"
)

// validateOps checks each operation, and for feeds (feed:N) what the rest
// of the spec runs them with: stacks that carry feeds, linear topologies
// (a feed is relayed by one downstream), Go nodes on this machine and
// hopbench's generator.
func (s *Spec) validateOps(bad func(string, string, ...any)) {
	feeds := false
	for i, op := range s.Ops {
		o, _, err := transport.ParseOpArg(op)
		if err != nil {
			bad(fmt.Sprintf("ops[%d]", i), "%v", err)
		}
		feeds = feeds || o == transport.OpFeed
	}
	if !feeds {
		return
	}
	const why = "; a part of its own can run the feeds without it"
	for i, name := range s.Stacks {
		if st, ok := s.stacks[name]; ok {
			if err := transport.FeedRefusal(st.Transport); err != nil {
				bad(fmt.Sprintf("stacks[%d]", i), "%v"+why, err)
			}
		}
	}
	for i, top := range s.Topologies {
		if t, ok := s.topologies[top]; ok && !t.Linear() {
			bad(fmt.Sprintf("topologies[%d]", i), "%q fans out: a feed is relayed through one downstream a node, so run it direct or on a chain%s", top, why)
		}
	}
	switch {
	case s.onJVM():
		bad("runtimes", "the JVM node serves no feeds yet: run feeds on go nodes%s", why)
	case len(s.Hosts) > 0:
		bad("hosts", "feeds run on this machine only: agents do not carry the time to the first message yet%s", why)
	case slices.Contains(s.Generators, GeneratorIndependent):
		bad("generators", "the independent generator makes unary calls only%s", why)
	}
}
