package main

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// replies matches replies to calls by correlation id, for the bare callers
// whose replies all come back on one stream (amqp's direct reply-to,
// kafka's reply topic): the least a caller on a broker needs.
type replies struct {
	seq   atomic.Uint64
	mu    sync.Mutex
	calls map[string]chan error
	ended error // set once the stream is gone; later calls fail with it
}

// newReplies is an empty table whose calls fail once bound has passed,
// so that a lost reply ends the run rather than hangs it (the callers'
// context has no deadline); bound is the run's duration and some.
func newReplies(bound time.Duration) *replies {
	r := &replies{calls: make(map[string]chan error)}
	time.AfterFunc(bound, func() { r.end(errors.New("no reply within " + bound.String())) })
	return r
}

// add is a new correlation id and where its reply's outcome comes.
func (r *replies) add() (string, chan error, error) {
	id := strconv.FormatUint(r.seq.Add(1), 36)
	ch := make(chan error, 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended != nil {
		return "", nil, r.ended
	}
	r.calls[id] = ch
	return id, ch, nil
}

// deliver ends the call of id with err (nil: its reply came); an id no
// call waits for is dropped.
func (r *replies) deliver(id string, err error) {
	r.mu.Lock()
	ch, ok := r.calls[id]
	delete(r.calls, id)
	r.mu.Unlock()
	if ok {
		ch <- err
	}
}

// forget drops the call of id (its request was never sent).
func (r *replies) forget(id string) {
	r.mu.Lock()
	delete(r.calls, id)
	r.mu.Unlock()
}

// end fails every call waiting and every later one with err.
func (r *replies) end(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended == nil {
		r.ended = err
	}
	for id, ch := range r.calls {
		ch <- err
		delete(r.calls, id)
	}
}

// await waits for the reply of id, or for ctx.
func (r *replies) await(ctx context.Context, id string, ch chan error) error {
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		r.forget(id)
		return ctx.Err()
	}
}
