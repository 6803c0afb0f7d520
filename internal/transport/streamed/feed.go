package streamed

import (
	"context"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// A feed on a shared stream: the request is an Envelope whose metadata
// asks for a feed; each message comes back as an Envelope with the
// request's id and the message's body, then one with the end (the number
// sent) or the error in its metadata. A caller that stops reading sends
// an Envelope with the id and hopbench-cancel, which ends the feed.

// running are the feeds a stream serves, by id, to be cancelled.
type running struct {
	mu     sync.Mutex
	cancel map[string]context.CancelFunc
}

// start registers feed id, under a context its cancel ends.
func (r *running) start(ctx context.Context, id string) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	if r.cancel == nil {
		r.cancel = map[string]context.CancelFunc{}
	}
	r.cancel[id] = cancel
	r.mu.Unlock()
	return ctx
}

// stop ends feed id, if it runs.
func (r *running) stop(id string) {
	r.mu.Lock()
	cancel := r.cancel[id]
	delete(r.cancel, id)
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// serveFeed answers a feed's request on s, each message as it comes.
func serveFeed(ctx context.Context, s Stream, h transport.Handler, in *pb.Envelope, maxBytes int, r *running) {
	defer r.stop(in.Id)
	brokered.ServeFeed(ctx, h, in.Meta, maxBytes, func(m brokered.Meta, body []byte) error {
		out, err := proto.Marshal(&pb.Envelope{Id: in.Id, Meta: m, Body: body})
		if err == nil {
			err = s.Send(out)
		}
		if err != nil {
			return err
		}
		return ctx.Err() // cancelled by its caller: stop at the next message
	})
}

// Feed calls a feed over the stream; each message is handed to each as
// it arrives. A caller that stops before the end tells the server.
func (c *Client) Feed(ctx context.Context, req *transport.Request, each func([]byte) error) error {
	id, fc, err := c.pending.AddFeed()
	if err != nil {
		return err
	}
	defer c.pending.RemoveFeed(id, fc)
	b, err := proto.Marshal(&pb.Envelope{Id: id, Meta: brokered.RequestMeta(ctx, req)})
	if err == nil {
		err = c.s.Send(b)
	}
	if err != nil {
		return transport.CutOff(ctx, brokered.Unavailable("stream: sending: %v", err))
	}
	for {
		body, ended, err := fc.Next(ctx, c.maxBytes)
		if ended {
			return err
		}
		if err == nil {
			if err = each(body); err == nil {
				continue
			}
		}
		if out, merr := proto.Marshal(&pb.Envelope{Id: id, Meta: brokered.Meta{brokered.HeaderCancel: "1"}}); merr == nil {
			c.s.Send(out) // a failed send is the stream's end: the feed ends with it
		}
		return err
	}
}
