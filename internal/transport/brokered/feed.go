package brokered

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/hopbench/hopbench/internal/transport"
)

// Header names of a feed's messages: a request's length; a reply's end,
// after its last message (the number sent); a caller's cancel of its feed.
const (
	HeaderMessages = "hopbench-messages"
	HeaderEnd      = "hopbench-end"
	HeaderCancel   = "hopbench-cancel"
)

// parseOp reads a request's operation: the unary ones, or feed.
func parseOp(s string) (transport.Op, error) {
	if s == string(transport.OpFeed) {
		return transport.OpFeed, nil
	}
	return transport.ParseOp(s)
}

// IsFeed says whether a request message asks for a feed.
func IsFeed(m Meta) bool { return m[HeaderOp] == string(transport.OpFeed) }

// ServeFeed answers a feed's request message with h: each message's body
// is handed to send with no metadata, then one message with the end (the
// number of messages sent) or the classified error. A message over
// maxBytes is not sent: the feed fails as too large.
func ServeFeed(ctx context.Context, h transport.Handler, m Meta, maxBytes int, send func(Meta, []byte) error) {
	ctx, cancel, ok := callerDeadline(ctx, m)
	if !ok {
		return
	}
	defer cancel()
	req, err := parseRequest(m, nil, maxBytes)
	if err == nil && h.Feed == nil {
		err = transport.Errorf(transport.CodeBadRequest, "this service serves no feeds")
	}
	sent := 0
	if err == nil {
		err = h.Feed(ctx, req, func(msg []byte) error {
			if err := transport.CheckBody("feed message", msg, maxBytes); err != nil {
				return err
			}
			sent++
			return send(nil, msg)
		})
	}
	if err != nil {
		send(Meta{HeaderError: transport.CodeOf(err).String(), HeaderErrorMsg: err.Error()}, nil)
		return
	}
	send(Meta{HeaderEnd: strconv.Itoa(sent)}, nil)
}

// FeedCall is a feed waiting for its messages, in order, the last one
// its end or error.
type FeedCall struct {
	ch     chan Reply
	quit   chan struct{} // closed when the caller stops reading
	once   sync.Once
	failed chan struct{} // closed with err when the connection failed
	err    error
}

// feedDepth is how many messages of a feed wait for its caller before the
// reader of a shared stream waits too: on a shared stream a slow feed
// holds up every call behind it, as on a real one.
const feedDepth = 64

// AddFeed registers a feed and returns its correlation id and call.
func (p *Pending) AddFeed() (string, *FeedCall, error) {
	id := p.nextID()
	fc := &FeedCall{ch: make(chan Reply, feedDepth), quit: make(chan struct{}), failed: make(chan struct{})}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed != nil {
		return "", nil, p.closed
	}
	p.feeds[id] = fc
	return id, fc, nil
}

// RemoveFeed forgets a feed whose caller stopped reading.
func (p *Pending) RemoveFeed(id string, fc *FeedCall) {
	p.mu.Lock()
	delete(p.feeds, id)
	p.mu.Unlock()
	fc.once.Do(func() { close(fc.quit) })
}

// deliverPart hands a feed its next message, waiting while the feed's
// caller is behind; the end or error message also forgets the feed.
func (p *Pending) deliverPart(id string, r Reply) bool {
	p.mu.Lock()
	fc, ok := p.feeds[id]
	if ok && (r.Meta[HeaderEnd] != "" || r.Meta[HeaderError] != "") {
		delete(p.feeds, id)
	}
	p.mu.Unlock()
	if ok {
		select {
		case fc.ch <- r:
		case <-fc.quit:
		}
	}
	return ok
}

func (fc *FeedCall) fail(err error) {
	fc.err = err
	close(fc.failed)
}

// Next is the feed's next message body. ended says the feed is over on
// the server's side too (its end, its error, or the connection's), so
// that a caller stopping for any other reason tells the server.
func (fc *FeedCall) Next(ctx context.Context, maxBytes int) (body []byte, ended bool, err error) {
	select {
	case r := <-fc.ch:
		switch {
		case r.Meta[HeaderEnd] != "":
			return nil, true, nil
		case r.Meta[HeaderError] != "":
			_, err := Result(r.Meta, nil, maxBytes)
			return nil, true, err
		case len(r.Body) > maxBytes:
			return nil, false, transport.TooLarge("feed message", len(r.Body), maxBytes)
		}
		return r.Body, false, nil
	case <-fc.failed:
		return nil, true, transport.CutOff(ctx, fc.err)
	case <-ctx.Done():
		return nil, false, transport.CutOff(ctx, fmt.Errorf("%w: the feed's messages stopped", errNoReply))
	}
}
