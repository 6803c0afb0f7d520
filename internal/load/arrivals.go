package load

import (
	"context"
	"time"
)

// arrivals is what a worker's call saw of a feed's messages arriving: when
// the first came, on the engine's clock, and how many came. A worker
// keeps one for its life, carries it in the context of every call (as
// net/http/httptrace carries its hooks, so a Call keeps its signature)
// and resets it before each. A unary call never touches it.
type arrivals struct {
	clock    clock
	first    time.Time // zero until a message arrives
	messages int64
	// intended and sent are the call's due time (from which its latency
	// counts) and when it was sent, for calls that stamp them into what
	// they send (one-way messages).
	intended, sent time.Time
}

type arrivalsKey struct{}

// withArrivals is ctx carrying a new arrivals on c, for one worker.
func withArrivals(ctx context.Context, c clock) (context.Context, *arrivals) {
	a := &arrivals{clock: c}
	return context.WithValue(ctx, arrivalsKey{}, a), a
}

// arrivalsOf is the arrivals ctx carries: a feed's call reads it once as
// it starts. Nil outside a worker (a probe before the load), where
// arrived does nothing.
func arrivalsOf(ctx context.Context) *arrivals {
	a, _ := ctx.Value(arrivalsKey{}).(*arrivals)
	return a
}

// arrived stamps one message as it arrives: call it before reading the
// message, so the time is the arrival's and not the generator's decode.
func (a *arrivals) arrived() {
	if a == nil {
		return
	}
	if a.messages == 0 {
		a.first = a.clock.Now()
	}
	a.messages++
}

func (a *arrivals) reset(intended, sent time.Time) {
	a.first, a.messages, a.intended, a.sent = time.Time{}, 0, intended, sent
}

// Due is when the call made under ctx was due (its latency counts from
// then: for an open loop that waited for a free worker, before it was
// sent) and when it was sent; zero times outside a worker.
func Due(ctx context.Context) (intended, sent time.Time) {
	if a := arrivalsOf(ctx); a != nil {
		return a.intended, a.sent
	}
	return time.Time{}, time.Time{}
}

// into is o with what the call saw of its messages.
func (a *arrivals) into(o outcome) outcome {
	o.first, o.messages = a.first, a.messages
	return o
}
