package brokered

import (
	"context"
	"errors"
	"testing"

	"github.com/hopbench/hopbench/internal/transport"
)

// A waiting call whose context has ended and whose connection was lost in
// the same moment returns its context's error, however the race between
// the two goes: an interrupted run tears its connections down as it
// cancels its calls, and the lost connection must not count as an error
// of the service. (Before, Wait's select took either at random.)
func TestAWaitCutOffIsItsContexts(t *testing.T) {
	lost := Unavailable("amqp: connection to RabbitMQ at 127.0.0.1:5672 lost: closed")
	for i := range 200 {
		p := NewPending()
		id, ch, err := p.Add()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		p.Fail(lost)
		_, err = p.Wait(ctx, id, ch, 1<<20)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("wait %d: %v, want the context's error", i, err)
		}
	}
	// A call whose context ends with no reply: the deadline's error.
	p := NewPending()
	id, ch, _ := p.Add()
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	_, err := p.Wait(ctx, id, ch, 1<<20)
	if !errors.Is(err, context.DeadlineExceeded) || transport.CodeOf(err) != transport.CodeDeadline {
		t.Errorf("past its deadline: %v (class %v), want a deadline error", err, transport.CodeOf(err))
	}
}
