package transport_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// A classified error keeps its message and its cause, so errors.Is and
// errors.As see through it.
func TestClassifiedErrorsKeepTheirCause(t *testing.T) {
	for _, err := range []error{
		transport.Errorf(transport.CodeBadRequest, "reading the request body: %w", io.ErrUnexpectedEOF),
		brokered.Unavailable("nats: connecting to NATS at %s: %w (is it running?)", "127.0.0.1:4222", io.ErrUnexpectedEOF),
	} {
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%v: the cause is lost", err)
		}
		if !strings.Contains(err.Error(), "unexpected EOF") || !strings.Contains(err.Error(), ": ") {
			t.Errorf("%v: the message is lost", err)
		}
	}
}

// A call that failed once its context ended is the context's, whatever it
// failed with: its caller tells it from a failure of the service by
// errors.Is(err, context.Canceled) (or DeadlineExceeded), while the
// transport's words stay in the message. Before the context ends, the
// error is the transport's own.
func TestACallCutOffIsItsContexts(t *testing.T) {
	lost := brokered.Unavailable("amqp: connection to RabbitMQ at %s lost: %s", "127.0.0.1:5672", "closed")
	if got := transport.CutOff(context.Background(), lost); got != error(lost) {
		t.Errorf("a live context changed %v into %v", lost, got)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		is   error
		code transport.Code
	}{
		{"cancelled as the connection was lost", cancelled, lost, context.Canceled, transport.CodeUnavailable},
		{"cancelled: the bare context error", cancelled, context.Canceled, context.Canceled, transport.CodeUnavailable},
		{"past its deadline as the connection was lost", expired, lost, context.DeadlineExceeded, transport.CodeDeadline},
		{"a deadline error that did not wrap its cause", expired, transport.Errorf(transport.CodeDeadline, "producing the request"), context.DeadlineExceeded, transport.CodeDeadline},
	} {
		got := transport.CutOff(c.ctx, c.err)
		if !errors.Is(got, c.is) || transport.CodeOf(got) != c.code {
			t.Errorf("%s: %v (class %v), want one that is %v, class %v", c.name, got, transport.CodeOf(got), c.is, c.code)
		}
		if c.err == error(lost) && (!errors.Is(got, lost) || !strings.Contains(got.Error(), "connection to RabbitMQ at 127.0.0.1:5672 lost")) {
			t.Errorf("%s: %v lost the transport's error", c.name, got)
		}
	}
}
