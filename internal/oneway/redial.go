package oneway

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopbench/hopbench/internal/transport"
)

// redialEvery spaces the attempts to reopen a lost connection: a broker
// restarting refuses them for seconds.
const redialEvery = 200 * time.Millisecond

// redial is a publisher that opens another after its connection is lost,
// on a later publish: a broker restarted mid-run takes publishes again.
// Publishes while none is open fail, and count as failed.
type redial struct {
	open     func(context.Context) (transport.Publisher, error)
	reopened *atomic.Int64
	mu       sync.Mutex
	p        transport.Publisher
	tried    time.Time
	err      error // the last attempt's
}

func (r *redial) Publish(ctx context.Context, key string, body []byte) error {
	p, err := r.get(ctx)
	if err != nil {
		return err
	}
	err = p.Publish(ctx, key, body)
	if err != nil && transport.CodeOf(err) == transport.CodeUnavailable {
		r.drop(p)
	}
	return err
}

// get is the open publisher, or a new one if none is and the last attempt
// is redialEvery old.
func (r *redial) get(ctx context.Context) (transport.Publisher, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p != nil {
		return r.p, nil
	}
	if time.Since(r.tried) < redialEvery {
		return nil, r.err
	}
	r.tried = time.Now()
	if r.p, r.err = r.open(ctx); r.err != nil {
		return nil, r.err
	}
	r.reopened.Add(1)
	return r.p, nil
}

func (r *redial) drop(p transport.Publisher) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p == p {
		p.Close()
		r.p, r.tried, r.err = nil, time.Time{}, transport.Errorf(transport.CodeUnavailable, "the publisher's connection was lost")
	}
}

func (r *redial) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p == nil {
		return nil
	}
	err := r.p.Close()
	r.p = nil
	return err
}

// resubscribe watches the subscribers until ctx ends: one whose
// connection is lost is closed and subscribed again, every redialEvery
// until it is, so a broker restarted mid-run is consumed again. Aborted
// ones stay down.
func (r *rig) resubscribe(ctx context.Context) {
	tick := time.NewTicker(redialEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for i := range r.subOf {
			r.revive(ctx, i)
		}
	}
}

// revive subscribes consumer i again if its subscription was lost.
func (r *rig) revive(ctx context.Context, i int) {
	r.mu.Lock()
	s, c, gone := r.subs[i], r.subOf[i], r.lost[i]
	r.mu.Unlock()
	if !gone && (s == nil || s.Err() == nil) {
		return
	}
	if s != nil {
		s.Close()
	}
	ns, err := r.m.Subscribe(ctx, r.target, r.brokerGroup(c.g.name), r.tcfg, c.deliver)
	if err != nil {
		// A restarted broker may have lost the run's queues, topic or
		// stream (non-durable settings): declare them again, as a service
		// does on reconnecting, for the next attempt.
		r.m.Prepare(ctx, r.target, r.tcfg, r.plan)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subs[i] != s || ctx.Err() != nil { // aborted, or the run ended, meanwhile
		if err == nil {
			ns.Close()
		}
		return
	}
	r.subs[i], r.lost[i] = ns, err != nil
	if err == nil {
		r.reopened.Add(1)
	}
}
