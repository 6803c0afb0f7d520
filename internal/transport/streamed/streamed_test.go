package streamed_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/streamed"
)

// endingStream ends with err on its first Recv once released.
type endingStream struct {
	release chan struct{}
	err     error
}

func (s *endingStream) Send([]byte) error { return nil }
func (s *endingStream) Recv() ([]byte, error) {
	<-s.release
	return nil, s.err
}
func (s *endingStream) Close() error { return nil }

// A call made on a stream that has failed its calls is marked not sent,
// keeps the stream's error and its code, and returns once the stream has
// ended, so a client that opens another stream sends it there.
func TestACallOnAnEndedStreamIsMarkedNotSent(t *testing.T) {
	s := &endingStream{release: make(chan struct{}), err: transport.TooLarge("request body", 2<<20, 1<<20)}
	c := streamed.NewClient(s, 1<<20)
	defer c.Close()
	close(s.release)
	<-c.Ended() // the stream failed its calls
	_, err := c.Call(context.Background(), &transport.Request{Op: transport.OpGet})
	if !errors.Is(err, streamed.ErrNotSent) || transport.CodeOf(err) != transport.CodeTooLarge {
		t.Fatalf("a call after the stream failed: %v (code %v): want not sent, with the stream's code", err, transport.CodeOf(err))
	}
	select {
	case <-c.Ended():
	case <-time.After(time.Second):
		t.Fatal("the call returned not sent before the stream had ended")
	}
}

// A reopening client opens no stream once closed: a call after Close
// fails and opens nothing (its reopening is ws's test: a client calls a
// server started again).
func TestAReopeningClientOpensNoStreamOnceClosed(t *testing.T) {
	opened := 0
	open := func(context.Context) (*streamed.Client, error) {
		opened++
		s := &endingStream{release: make(chan struct{}), err: errors.New("gone")}
		close(s.release) // each stream ends at once
		return streamed.NewClient(s, 1<<20), nil
	}
	c, err := streamed.NewReopening(context.Background(), open, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := c.Call(context.Background(), &transport.Request{Op: transport.OpGet}); err == nil || opened != 1 {
		t.Errorf("a call after Close: %v, %d streams opened by it", err, opened-1)
	}
}
