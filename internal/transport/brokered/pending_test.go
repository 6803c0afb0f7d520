package brokered

import (
	"context"
	"errors"
	"testing"
	"time"

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

// A feed's messages arrive in order, the end last; a feed whose caller is
// behind holds its deliverer (on a shared stream, the reader) until the
// caller reads or leaves, and nothing meant for it reaches another call.
func TestAFeedIsDeliveredInOrderAndHoldsItsDeliverer(t *testing.T) {
	p := NewPending()
	id, fc, err := p.AddFeed()
	if err != nil {
		t.Fatal(err)
	}
	other, och, _ := p.Add()
	delivered := make(chan int)
	go func() {
		n := 0
		for ; n < feedDepth+10; n++ {
			p.Deliver(id, Reply{Body: []byte{byte(n)}})
		}
		p.Deliver(id, Reply{Meta: Meta{HeaderEnd: "74"}})
		delivered <- n
	}()
	select {
	case <-delivered:
		t.Fatal("the deliverer went on past a full feed")
	case <-time.After(50 * time.Millisecond):
	}
	for i := 0; ; i++ {
		body, ended, err := fc.Next(context.Background(), 1<<20)
		if ended {
			if err != nil || i != feedDepth+10 {
				t.Fatalf("the feed ended after %d messages with %v, want %d and no error", i, err, feedDepth+10)
			}
			break
		}
		if err != nil || len(body) != 1 || body[0] != byte(i) {
			t.Fatalf("message %d: %v, %v", i, body, err)
		}
	}
	<-delivered
	p.Deliver(other, Reply{Body: []byte("mine")})
	if r := <-och; string(r.Body) != "mine" {
		t.Errorf("the unary call beside the feed got %q", r.Body)
	}
	// A caller that leaves frees a deliverer held by its feed.
	id, fc, _ = p.AddFeed()
	go func() {
		for range feedDepth + 1 {
			p.Deliver(id, Reply{Body: []byte("x")})
		}
		delivered <- 0
	}()
	time.Sleep(20 * time.Millisecond)
	p.RemoveFeed(id, fc)
	select {
	case <-delivered:
	case <-time.After(5 * time.Second):
		t.Fatal("a feed whose caller left still holds its deliverer")
	}
}
