package transport

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// OpFeed is server streaming: the reply is Request.Messages messages, each
// carrying Count items of Model, as a feed or a token stream arrives. A
// spec writes it feed:N (ParseOpArg).
const OpFeed Op = "feed"

// MaxFeedMessages bounds a feed's length: a bound chosen here, generous
// for a stream a caller waits on, finite against a typo.
const MaxFeedMessages = 100_000

// ParseOpArg reads an operation as a spec and the command line write it:
// get, post, echo, or feed:N with N the messages a reply carries (0 for
// the others).
func ParseOpArg(s string) (Op, int, error) {
	name, arg, hasArg := strings.Cut(s, ":")
	if name != string(OpFeed) {
		if hasArg {
			return "", 0, fmt.Errorf("operation %q takes no :N (only feed:N does)", s)
		}
		op, err := ParseOp(s)
		if err != nil {
			return "", 0, fmt.Errorf("unknown operation %q (known: get, post, echo, feed:N)", s)
		}
		return op, 0, nil
	}
	n, err := strconv.Atoi(arg)
	if !hasArg || err != nil || n < 1 || n > MaxFeedMessages {
		return "", 0, fmt.Errorf("%q: write feed:N with N the messages the reply carries, from 1 to %d, e.g. feed:100", s, MaxFeedMessages)
	}
	return OpFeed, n, nil
}

// FeedClient is a Client that calls feeds: each message's body (encoded,
// and compressed as the stack compresses bodies) is handed to each as it
// arrives, in order. An error from each ends the call, the transport
// cancelling it upstream, and is returned as it came.
type FeedClient interface {
	Feed(ctx context.Context, req *Request, each func(msg []byte) error) error
}

// CallFeed calls a feed on c, refusing by name a client that carries none.
func CallFeed(ctx context.Context, c Client, stack string, req *Request, each func(msg []byte) error) error {
	f, ok := c.(FeedClient)
	if !ok {
		return Errorf(CodeBadRequest, "%s's client calls no feeds", stack)
	}
	return f.Feed(ctx, req, each)
}
