package load

import (
	"context"
	"fmt"

	"github.com/hopbench/hopbench/internal/transport"
)

// feedCall is one worker's feed calls on a Target: each message is
// stamped as it arrives, then read as a get's reply is. It is made once
// per worker, its each bound once, so a call allocates nothing of its own.
type feedCall struct {
	t    *Target
	arr  *arrivals // the call's worker's; nil outside a load
	n    int       // messages of the call so far
	each func(msg []byte) error
}

func (t *Target) newFeedCall() *feedCall {
	f := &feedCall{t: t}
	f.each = f.message
	return f
}

// call makes one feed on cl. A feed short of its messages is a bad reply
// (a protocol error), as a reply short of its items is.
func (f *feedCall) call(ctx context.Context, cl transport.Client) error {
	f.arr, f.n = arrivalsOf(ctx), 0
	if err := transport.CallFeed(ctx, cl, f.t.stack, &f.t.req, f.each); err != nil {
		return err
	}
	if want := f.t.cfg.Messages; f.n != want {
		return fmt.Errorf("the feed carried %d messages, want %d", f.n, want)
	}
	return nil
}

// message takes one message: its arrival is stamped before it is read,
// so the time is the service's and the network's, not the generator's
// decode. A message past the feed's length ends the call.
func (f *feedCall) message(msg []byte) error {
	f.arr.arrived()
	if f.n++; f.n > f.t.cfg.Messages {
		return fmt.Errorf("the feed carried more than the %d messages asked for", f.t.cfg.Messages)
	}
	return f.t.check(msg)
}
