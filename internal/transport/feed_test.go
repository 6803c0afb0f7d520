package transport_test

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/transport"
)

func TestFeedIsWrittenWithItsLength(t *testing.T) {
	for in, want := range map[string]struct {
		op transport.Op
		n  int
	}{"get": {transport.OpGet, 0}, "echo": {transport.OpEcho, 0}, "feed:1": {transport.OpFeed, 1}, "feed:100000": {transport.OpFeed, 100000}} {
		op, n, err := transport.ParseOpArg(in)
		if err != nil || op != want.op || n != want.n {
			t.Errorf("ParseOpArg(%q) = %q, %d, %v; want %q, %d", in, op, n, err, want.op, want.n)
		}
	}
	for in, want := range map[string]string{
		"feed": "feed:N", "feed:0": "from 1 to 100000", "feed:100001": "e.g. feed:100", "feed:x": "feed:N",
		"echo:3": "takes no :N", "stream": "known: get, post, echo, feed:N",
	} {
		if _, _, err := transport.ParseOpArg(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOpArg(%q): %v, want an error saying %q", in, err, want)
		}
	}
}

// Each stack's own refusal is in the conformance suite.
func TestStacksWithOneReplyACallRefuseFeedsByName(t *testing.T) {
	for _, name := range []string{"graphql"} {
		err := transport.FeedRefusal(name)
		if err == nil || !strings.HasPrefix(err.Error(), name+" replies with one message a call") {
			t.Errorf("FeedRefusal(%s) = %v, want a refusal naming it", name, err)
		}
	}
}
