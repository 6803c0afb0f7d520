// Package streamed carries calls over one long-lived stream that many
// calls share, several in flight: each call travels in an Envelope
// (schema/hopbench/v1/envelope.proto) with an id its reply carries back,
// and the broker stacks' metadata (internal/transport/brokered), so the
// node decodes, works and encodes as on every stack. A stack supplies the
// stream (a WebSocket connection); this package serves and calls over it.
package streamed

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// Stream is one long-lived stream of messages both ways. Send may be
// called concurrently; Recv from one goroutine at a time. Recv returns a
// message past MessageLimit cut to its first MessageLimit+1 bytes (the
// rest read and dropped), which Serve refuses as too large.
type Stream interface {
	Send(b []byte) error
	Recv() ([]byte, error)
	Close() error
}

// envelopeOverhead bounds what an envelope adds to its body: its id and
// metadata. A stream's messages may be this much larger than a body.
const envelopeOverhead = 64 << 10

// MessageLimit is the largest message a stream carrying bodies of up to
// maxBytes takes.
func MessageLimit(maxBytes int) int { return maxBytes + envelopeOverhead }

// Serve answers every call on s with h until s ends or a message is not
// an Envelope; then it cancels the calls still running and waits for
// them. The goroutine that reads a call serves it, once it has handed the
// reading of the next one to another (leader and followers): a call is
// never handed from the reader to a sleeping goroutine, whose wake-up
// would be on its critical path (tens of µs on a busy machine), and calls
// still run side by side.
func Serve(s Stream, h transport.Handler, maxBytes int) error {
	hs := brokered.NewHandlers(brokered.ServeConcurrent)
	defer hs.Close()
	ended := make(chan error, 1) // one reader at a time: one end
	var feeds running
	var read func(ctx context.Context)
	read = func(ctx context.Context) {
		b, err := s.Recv()
		if err == nil && len(b) <= MessageLimit(maxBytes) {
			var in pb.Envelope
			if err = proto.Unmarshal(b, &in); err == nil {
				switch {
				case in.Meta[brokered.HeaderCancel] != "":
					hs.Go(read)
					feeds.stop(in.Id)
				case brokered.IsFeed(in.Meta):
					ctx := feeds.start(ctx, in.Id) // before the next read, which may be its cancel
					hs.Go(read)
					serveFeed(ctx, s, h, &in, maxBytes, &feeds)
				default:
					hs.Go(read)
					serveOne(ctx, s, h, &in, maxBytes)
				}
				return
			}
			err = fmt.Errorf("a message that is not an Envelope: %w", err) // a peer that speaks another protocol
		}
		if err != nil {
			ended <- err
			return
		}
		hs.Go(read)
		refuse(s, b, maxBytes)
	}
	hs.Go(read)
	return <-ended
}

// serveOne answers one call and sends its reply on s.
func serveOne(ctx context.Context, s Stream, h transport.Handler, in *pb.Envelope, maxBytes int) {
	brokered.Serve(ctx, h, in.Meta, in.Body, maxBytes, func(_ context.Context, m brokered.Meta, body []byte) {
		out, err := proto.Marshal(&pb.Envelope{Id: in.Id, Meta: m, Body: body})
		if err == nil {
			s.Send(out) // a failed send is the stream's end, which Recv sees
		}
	})
}

// headID is the id at the head of an envelope cut short (field 1, which
// Marshal writes first).
func headID(head []byte) (string, bool) {
	num, typ, n := protowire.ConsumeTag(head)
	if n < 0 || num != 1 || typ != protowire.BytesType {
		return "", false
	}
	id, m := protowire.ConsumeString(head[n:])
	return id, m >= 0
}

// refuse answers a call too large to read, by its id.
func refuse(s Stream, head []byte, maxBytes int) {
	id, ok := headID(head)
	if !ok {
		return // no id to answer: its caller times out
	}
	err := transport.TooLarge("request body", -1, maxBytes)
	out, merr := proto.Marshal(&pb.Envelope{Id: id, Meta: brokered.Meta{brokered.HeaderError: transport.CodeOf(err).String(), brokered.HeaderErrorMsg: err.Error()}})
	if merr == nil {
		s.Send(out)
	}
}

// Client makes calls over one stream, matching replies by id.
type Client struct {
	s        Stream
	pending  *brokered.Pending
	maxBytes int
	done     chan struct{}
	once     sync.Once
}

// NewClient calls over s; it reads s's replies until s ends.
func NewClient(s Stream, maxBytes int) *Client {
	c := &Client{s: s, pending: brokered.NewPending(), maxBytes: maxBytes, done: make(chan struct{})}
	go c.read()
	return c
}

func (c *Client) read() {
	defer close(c.done)
	for {
		b, err := c.s.Recv()
		if err != nil {
			var classified *transport.Error // the stream's own, e.g. gRPC's status
			if !errors.As(err, &classified) {
				err = brokered.Unavailable("stream: %v", err)
			}
			c.pending.Fail(err)
			return
		}
		if len(b) > MessageLimit(c.maxBytes) {
			if id, ok := headID(b); ok {
				c.pending.Deliver(id, brokered.Reply{Err: transport.TooLarge("reply body", -1, c.maxBytes)})
			}
			continue
		}
		var r pb.Envelope
		if err := proto.Unmarshal(b, &r); err != nil {
			c.pending.Fail(brokered.Unavailable("stream: a reply that is not an Envelope: %v", err))
			c.s.Close()
			return
		}
		c.pending.Deliver(r.Id, brokered.Reply{Meta: r.Meta, Body: r.Body})
	}
}

// Call sends req and waits for its reply, or for ctx to end.
func (c *Client) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	id, ch, err := c.pending.Add()
	if err != nil {
		// The stream failed its calls and is ending (read and Close end it
		// right after): this one was not sent, and Ended says so now.
		<-c.done
		return nil, notSent{err}
	}
	b, err := proto.Marshal(&pb.Envelope{Id: id, Meta: brokered.RequestMeta(ctx, req), Body: req.Body})
	if err == nil {
		err = c.s.Send(b)
	}
	if err != nil {
		c.pending.Remove(id)
		return nil, transport.CutOff(ctx, brokered.Unavailable("stream: sending: %v", err))
	}
	return c.pending.Wait(ctx, id, ch, c.maxBytes)
}

// ErrNotSent marks a call refused before it was sent because its stream
// had ended: a client that opens another stream may send it there.
var ErrNotSent = errors.New("not sent: the stream had ended")

// errClientClosed fails the calls on a client closed under them, and any
// made after (Client's and Reopening's alike).
var errClientClosed = brokered.Unavailable("stream: the client is closed")

// notSent is the stream's own error (its code kept), marked ErrNotSent.
type notSent struct{ err error }

func (e notSent) Error() string   { return e.err.Error() }
func (e notSent) Unwrap() []error { return []error{ErrNotSent, e.err} }

// Ended is closed once the stream has ended (its calls failed with it).
func (c *Client) Ended() <-chan struct{} { return c.done }

// Close ends the stream and every call waiting on it.
func (c *Client) Close() error {
	var err error
	c.once.Do(func() {
		err = c.s.Close()
		<-c.done
		c.pending.Fail(errClientClosed)
	})
	return err
}
