package streamed_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
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

// closingStream ends when closed, and says whether it was.
type closingStream struct {
	closed chan struct{}
}

func (s *closingStream) Send([]byte) error { return nil }
func (s *closingStream) Recv() ([]byte, error) {
	<-s.closed
	return nil, errors.New("closed")
}
func (s *closingStream) Close() error {
	select {
	case <-s.closed:
	default:
		close(s.closed)
	}
	return nil
}

// While one caller opens the next stream (a dial that takes its time),
// another waits only until its own deadline, and Close does not wait for
// the open; a stream opened after Close is closed at once.
func TestAReopeningClientOpensOutsideItsLock(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{})
	var first *streamed.Client
	var late *closingStream
	open := func(context.Context) (*streamed.Client, error) {
		if first == nil {
			first = endedClient() // the first stream ends at once
			return first, nil
		}
		close(entered)
		<-release
		late = &closingStream{closed: make(chan struct{})}
		return streamed.NewClient(late, 1<<20), nil
	}
	c, err := streamed.NewReopening(context.Background(), open, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-first.Ended()
	req := textGet()
	opener := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), req)
		opener <- err
	}()
	<-entered // the opener is in open
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	waiter := make(chan error, 1)
	go func() { _, err := c.Call(ctx, req); waiter <- err }()
	select {
	case err := <-waiter:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a call while another opens: %v, want its deadline's error", err)
		}
	case <-time.After(2 * time.Second):
		close(release)
		t.Fatal("a call with 100ms to go still waits for another's open after 2s")
	}
	patient := make(chan error, 1) // a call without a deadline, waiting on the open
	go func() { _, err := c.Call(context.Background(), req); patient <- err }()
	time.Sleep(50 * time.Millisecond) // it waits on the open by now, or it meets a closed client: a pass either way
	closed := make(chan struct{})
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		close(release)
		t.Fatal("Close waited for an open under way")
	}
	select {
	case err := <-patient:
		if transport.CodeOf(err) != transport.CodeUnavailable {
			t.Errorf("a call waiting on the open as the client closed: %v, want unavailable", err)
		}
	case <-time.After(2 * time.Second):
		close(release)
		t.Fatal("a call without a deadline still waits on the open 2s after Close")
	}
	close(release)
	if err := <-opener; transport.CodeOf(err) != transport.CodeUnavailable || !strings.Contains(err.Error(), "closed") {
		t.Errorf("the opener's call on a client closed while it opened: %v, want unavailable: closed", err)
	}
	select {
	case <-late.closed:
	default:
		t.Error("the stream opened after Close was left open")
	}
}

// An open that fails fails its caller's call only: a call waiting on it
// looks again and opens the next stream itself.
func TestAReopeningClientRetriesAfterAFailedOpen(t *testing.T) {
	var first *streamed.Client
	failing, entered, release := true, make(chan struct{}), make(chan struct{})
	opened := 0
	open := func(context.Context) (*streamed.Client, error) {
		opened++
		switch {
		case first == nil:
			first = endedClient() // the first stream ends at once
			return first, nil
		case failing:
			failing = false
			close(entered)
			<-release
			return nil, errors.New("dial refused")
		}
		return streamed.NewClient(&closingStream{closed: make(chan struct{})}, 1<<20), nil
	}
	c, err := streamed.NewReopening(context.Background(), open, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	<-first.Ended()
	req := textGet()
	failed := make(chan error, 1)
	go func() { _, err := c.Call(context.Background(), req); failed <- err }()
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	waited := make(chan error, 1)
	go func() { _, err := c.Call(ctx, req); waited <- err }()
	time.Sleep(20 * time.Millisecond) // the second call waits on the open (or has not come yet: either way it opens next)
	close(release)
	if err := <-failed; err == nil || !strings.Contains(err.Error(), "dial refused") {
		t.Errorf("the failed open's call: %v, want its error", err)
	}
	// The second call sent on the stream it opened; nothing answers there,
	// so it ends at its deadline, having opened it.
	if err := <-waited; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the waiting call: %v, want its deadline's error after sending on a new stream", err)
	}
	if opened != 3 {
		t.Errorf("%d opens, want 3 (the first, the failed one, the waiting call's)", opened)
	}
}

// endedClient is a client of a stream that has ended already.
func endedClient() *streamed.Client {
	s := &closingStream{closed: make(chan struct{})}
	close(s.closed)
	return streamed.NewClient(s, 1<<20)
}

// textGet is a get of text in JSON, uncompressed.
func textGet() *transport.Request {
	json, _ := codec.Lookup("json")
	none, _ := codec.LookupCompression("none")
	return &transport.Request{Op: transport.OpGet, Model: "text", Codec: json, Compression: none}
}
