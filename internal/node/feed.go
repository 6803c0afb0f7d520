package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
)

// handleFeed serves a feed (server streaming): one in-flight slot for the
// whole feed. A caller that left mid-feed is not the node's failure.
func (n *Node) handleFeed(ctx context.Context, req *transport.Request, send func([]byte) error) error {
	release, err := n.admit()
	if err != nil {
		return err
	}
	defer release()
	err = n.feed(ctx, req, send)
	var gone *callerGone
	if err != nil && !errors.As(err, &gone) {
		return n.fail(err)
	}
	return err
}

// callerGone is a send that failed: the caller left or its stream broke.
type callerGone struct{ err error }

func (c *callerGone) Error() string { return c.err.Error() }
func (c *callerGone) Unwrap() error { return c.err }

// feeder is one feed being served: its phases, summed over its messages
// (decode: downstream messages read by a relay; work: messages generated
// by a leaf; encode: every message written), and where they go.
type feeder struct {
	d    [numPhases]time.Duration
	cc   codec.Codec
	send func([]byte) error
	own  time.Duration // decode, encode and send time: a relay's own
}

// encode encodes one message, timed as the encode phase.
func (f *feeder) encode(msg proto.Message) ([]byte, error) {
	t := time.Now()
	b, err := f.cc.Marshal(msg)
	if err != nil {
		return nil, transport.Errorf(transport.CodeInternal, "encoding the %s message: %v", f.cc.Name(), err)
	}
	f.d[PhaseEncode] += time.Since(t)
	return b, nil
}

// put encodes msg and sends it.
func (f *feeder) put(msg proto.Message) error {
	b, err := f.encode(msg)
	if err != nil {
		return err
	}
	return f.sendBytes(b)
}

// sendBytes sends one message. A send the transport refused as too large
// is the node's failure (the feed's message is over the limit); any other
// failed send is the caller's leaving.
func (f *feeder) sendBytes(b []byte) error {
	err := f.send(b)
	var te *transport.Error
	if err == nil || errors.As(err, &te) && te.Code == transport.CodeTooLarge {
		return err
	}
	return &callerGone{err}
}

// feed sends req.Messages messages: a leaf generates each (message i with
// seed Seed+i, so that the messages differ); a relay passes on each of its
// one downstream's as it arrives, decoded and encoded again as every hop
// does, and never holds the feed.
func (n *Node) feed(ctx context.Context, req *transport.Request, send func([]byte) error) error {
	start := time.Now()
	m, err := payload.Lookup(req.Model)
	if err != nil {
		return &transport.Error{Code: transport.CodeNotFound, Msg: err.Error()}
	}
	if req.Messages < 1 || req.Messages > transport.MaxFeedMessages {
		return transport.Errorf(transport.CodeBadRequest, "a feed of %d messages: ask for 1 to %d", req.Messages, transport.MaxFeedMessages)
	}
	f := &feeder{cc: codec.Compressed(req.Codec, req.Compression, n.cfg.Transport.MaxBytesOrDefault()), send: send}
	switch {
	case len(n.clients) > 1:
		return transport.Errorf(transport.CodeBadRequest, "a feed is relayed through one downstream node; this one has %d (run feeds direct or on a chain)", len(n.clients))
	case len(n.clients) == 1:
		err = n.relayFeed(ctx, req, m, f)
	case n.cfg.Cache:
		err = n.cachedFeed(req, m, f)
	default:
		err = n.leafFeed(req, m, f, nil)
	}
	if err != nil {
		return err
	}
	f.d[PhaseTotal] = time.Since(start)
	n.timings.record(&f.d)
	return nil
}

// leafFeed generates and sends the messages, keeping each encoded one in
// keep when it is given (the cache's).
func (n *Node) leafFeed(req *transport.Request, m payload.Model, f *feeder, keep *[][]byte) error {
	if err := n.checkReplySize(req, m); err != nil {
		return err
	}
	for i := range req.Messages {
		t := time.Now()
		msg, err := n.cfg.Schema.Message(m, req.Count, n.cfg.Seed+uint64(i))
		f.d[PhaseWork] += time.Since(t)
		if err != nil {
			return &transport.Error{Code: transport.CodeBadRequest, Msg: err.Error()}
		}
		b, err := f.encode(msg)
		if err != nil {
			return err
		}
		if keep != nil {
			*keep = append(*keep, b)
		}
		if err := f.sendBytes(b); err != nil {
			return err
		}
	}
	return nil
}

// cachedFeed replays a feed served before with the same model, count,
// length, codec and compression; the first one is generated and kept.
func (n *Node) cachedFeed(req *transport.Request, m payload.Model, f *feeder) error {
	key := cacheKey{model: req.Model, count: req.Count, messages: req.Messages, codec: req.Codec.Name(), compr: req.Compression.Name()}
	if v, ok := n.cache.Load(key); ok {
		n.hits.Add(1)
		for _, b := range v.([][]byte) {
			if err := f.sendBytes(b); err != nil {
				return err
			}
		}
		return nil
	}
	kept := make([][]byte, 0, req.Messages)
	if err := n.leafFeed(req, m, f, &kept); err != nil {
		return err
	}
	n.cache.Store(key, kept)
	return nil
}

// relayFeed calls the feed downstream and passes each message on as it
// arrives. Downstream time is the downstream feed's wall time less this
// node's own decode, encode and send time within it.
func (n *Node) relayFeed(ctx context.Context, req *transport.Request, m payload.Model, f *feeder) error {
	out := transport.Request{Op: transport.OpFeed, Model: req.Model, Count: req.Count, Messages: req.Messages, Codec: req.Codec, Compression: req.Compression}
	t := time.Now()
	err := transport.CallFeed(ctx, n.clients[0], n.cfg.Stack.Transport, &out, func(b []byte) error {
		t0 := time.Now()
		defer func() { f.own += time.Since(t0) }()
		msg := n.cfg.Schema.NewReply(transport.OpGet, m)
		if err := f.cc.Unmarshal(b, msg); err != nil {
			return transport.Errorf(transport.CodeInternal, "downstream %s: decoding its message: %v", n.cfg.Downstream[0], err)
		}
		f.d[PhaseDecode] += time.Since(t0)
		return f.put(msg)
	})
	f.d[PhaseDownstream] = time.Since(t) - f.own
	var gone *callerGone
	if err == nil || errors.As(err, &gone) {
		return err
	}
	return &transport.Error{Code: transport.CodeOf(err), Msg: fmt.Sprintf("downstream %s: %v", n.cfg.Downstream[0], err), Err: err}
}
