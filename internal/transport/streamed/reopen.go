package streamed

import (
	"context"
	"errors"
	"sync"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// Reopening calls over one stream at a time: a stream that ended (its
// server went, or a message past the limit ended it, as gRPC ends a
// stream) fails the calls on it, and the next call opens another, as a
// client of a long-lived stream does.
type Reopening struct {
	open   func(context.Context) (*Client, error)
	after  func() error // once the last stream is closed; may be nil
	mu     sync.Mutex
	s      *Client
	closed bool
}

// NewReopening opens the first stream with open, which opens each next
// one too; Close closes the stream and then calls after, if not nil
// (what the streams run on, such as their connection).
func NewReopening(ctx context.Context, open func(context.Context) (*Client, error), after func() error) (*Reopening, error) {
	s, err := open(ctx)
	if err != nil {
		return nil, err
	}
	return &Reopening{open: open, after: after, s: s}, nil
}

// current is the live stream, opened again if the last one ended; none
// once the client is closed.
func (r *Reopening) current(ctx context.Context) (*Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, brokered.Unavailable("stream: the client is closed")
	}
	select {
	case <-r.s.Ended():
		r.s.Close()
		s, err := r.open(ctx)
		if err != nil {
			return nil, err
		}
		r.s = s
	default:
	}
	return r.s, nil
}

// Call sends req over the live stream; one refused unsent because its
// stream ended between current and the call (a message past the limit
// ended it as the last call returned) goes on the next.
func (r *Reopening) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	s, err := r.current(ctx)
	if err != nil {
		return nil, err
	}
	b, err := s.Call(ctx, req)
	if errors.Is(err, ErrNotSent) {
		if s, err = r.current(ctx); err != nil {
			return nil, err
		}
		return s.Call(ctx, req)
	}
	return b, err
}

// Feed calls a feed on the live stream.
func (r *Reopening) Feed(ctx context.Context, req *transport.Request, each func([]byte) error) error {
	s, err := r.current(ctx)
	if err != nil {
		return err
	}
	return s.Feed(ctx, req, each)
}

// Close ends the live stream and every call on it, then calls after.
func (r *Reopening) Close() error {
	r.mu.Lock()
	r.closed = true
	err := r.s.Close()
	r.mu.Unlock()
	if r.after != nil {
		err = errors.Join(err, r.after())
	}
	return err
}
