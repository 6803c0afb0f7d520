package streamed

import (
	"context"
	"errors"
	"sync"

	"github.com/hopbench/hopbench/internal/transport"
)

// Reopening calls over one stream at a time: a stream that ended (its
// server went, or a message past the limit ended it, as gRPC ends a
// stream) fails the calls on it, and the next call opens another, as a
// client of a long-lived stream does.
type Reopening struct {
	open    func(context.Context) (*Client, error)
	after   func() error // once the last stream is closed; may be nil
	mu      sync.Mutex
	s       *Client
	opening chan struct{} // closed when the open under way ends; nil when none is
	closed  chan struct{} // closed by Close, which also wakes the callers waiting on an open
}

// NewReopening opens the first stream with open, which opens each next
// one too; Close closes the stream and then calls after, if not nil
// (what the streams run on, such as their connection).
func NewReopening(ctx context.Context, open func(context.Context) (*Client, error), after func() error) (*Reopening, error) {
	s, err := open(ctx)
	if err != nil {
		return nil, err
	}
	return &Reopening{open: open, after: after, s: s, closed: make(chan struct{})}, nil
}

// current is the live stream, opened again if the last one ended; none
// once the client is closed. One caller opens the next stream, outside
// the lock, while the others wait for it until their own contexts end.
func (r *Reopening) current(ctx context.Context) (*Client, error) {
	for {
		r.mu.Lock()
		if r.isClosed() {
			r.mu.Unlock()
			return nil, errClientClosed
		}
		select {
		case <-r.s.Ended():
		default:
			s := r.s
			r.mu.Unlock()
			return s, nil
		}
		if r.opening == nil {
			return r.reopen(ctx) // unlocks
		}
		opening := r.opening
		r.mu.Unlock()
		select {
		case <-opening: // opened, or failed: look again
		case <-r.closed: // look again: closed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// reopen opens the next stream, called with r.mu held, which it releases
// while it opens. A stream opened after Close is closed at once.
func (r *Reopening) reopen(ctx context.Context) (*Client, error) {
	opening := make(chan struct{})
	r.opening = opening
	r.mu.Unlock()
	defer func() { // last, even if open panics: the waiters look again
		r.mu.Lock()
		r.opening = nil
		close(opening)
		r.mu.Unlock()
	}()
	s, err := r.open(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil:
		return nil, err
	case r.isClosed():
		s.Close()
		return nil, errClientClosed
	}
	r.s.Close()
	r.s = s
	return s, nil
}

// isClosed says Close has been called.
func (r *Reopening) isClosed() bool {
	select {
	case <-r.closed:
		return true
	default:
		return false
	}
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
	if !r.isClosed() {
		close(r.closed)
	}
	err := r.s.Close()
	r.mu.Unlock()
	if r.after != nil {
		err = errors.Join(err, r.after())
	}
	return err
}
