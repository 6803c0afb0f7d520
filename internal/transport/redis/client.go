package redis

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// replyTTL is how long a client's reply stream outlives the client's last
// sign of life: its reader renews it every third of it, and Close deletes
// the stream, so only a client that died leaves one, for this long.
const replyTTL = time.Minute

// client adds requests to the service's stream and reads replies from a
// stream of its own, on a connection of its own, matched to their calls
// by correlation id.
type client struct {
	addr     brokered.Addr
	s        settings
	replyTo  string
	rdb      *goredis.Client
	reader   *goredis.Client
	pending  *brokered.Pending
	maxBytes int
	closing  atomic.Bool
	done     chan struct{}
	once     sync.Once
}

// Dial makes the client's reply stream and starts reading it.
func (t Transport) Dial(ctx context.Context, target string, cfg transport.Config) (transport.Client, error) {
	e, err := brokered.Open(t, target, cfg, false)
	if err != nil {
		return nil, err
	}
	a := e.Addr
	c := &client{addr: a, s: settingsOf(e.Options), replyTo: a.Name + ".reply." + brokered.RandomID(), pending: brokered.NewPending(),
		maxBytes: e.MaxBytes, rdb: newClient(a, cfg, "client", 0), reader: newClient(a, cfg, "client", readerPool),
		done: make(chan struct{})}
	err = ping(ctx, a, c.reader, c.rdb)
	if err == nil {
		err = c.makeReplyStream(ctx)
	}
	if err != nil {
		c.rdb.Close()
		c.reader.Close()
		return nil, err
	}
	go c.receive()
	return c, nil
}

// makeReplyStream makes the client's reply stream, empty and expiring:
// services add replies to it only while it exists.
func (c *client) makeReplyStream(ctx context.Context) error {
	pipe := c.rdb.TxPipeline()
	pipe.XAdd(ctx, &goredis.XAddArgs{Stream: c.replyTo, Values: []string{"open", "1"}})
	pipe.XTrimMaxLen(ctx, c.replyTo, 0)
	pipe.Expire(ctx, c.replyTo, replyTTL)
	if _, err := pipe.Exec(ctx); err != nil {
		return brokered.Unavailable("redis: making reply stream %s: %w", c.replyTo, err)
	}
	return nil
}

// receive hands replies to their callers and deletes them, until Close;
// a failed read fails every call, in flight and later.
func (c *client) receive() {
	defer close(c.done)
	last, renewed := "0-0", time.Now()
	for {
		args := &goredis.XReadArgs{Streams: []string{c.replyTo, last}, Count: readBatch, Block: readBlock}
		streams, err := c.reader.XRead(context.Background(), args).Result()
		if c.closing.Load() {
			return
		}
		if err != nil && !errors.Is(err, goredis.Nil) {
			c.pending.Fail(brokered.Unavailable("redis: reading replies from Redis at %s: %v", c.addr.Host, err))
			return
		}
		var read []string
		for _, st := range streams {
			for _, msg := range st.Messages {
				m, id, _, body := parseEntry(msg.Values)
				c.pending.Deliver(id, brokered.Reply{Meta: m, Body: body})
				read, last = append(read, msg.ID), msg.ID
			}
		}
		if err := c.tidy(read, &renewed); err != nil && !c.closing.Load() {
			c.pending.Fail(brokered.Unavailable("redis: reply stream %s at %s: %v", c.replyTo, c.addr.Host, err))
			return
		}
	}
}

// tidy deletes the replies read and renews the reply stream's expiry
// when due, in one round trip; nothing when neither is to do.
func (c *client) tidy(read []string, renewed *time.Time) error {
	ctx := context.Background()
	renew := time.Since(*renewed) > replyTTL/3
	if len(read) == 0 && !renew {
		return nil
	}
	pipe := c.reader.Pipeline()
	if len(read) > 0 {
		pipe.XDel(ctx, c.replyTo, read...)
	}
	if renew {
		pipe.Expire(ctx, c.replyTo, replyTTL)
		*renewed = time.Now()
	}
	_, err := pipe.Exec(ctx)
	return err
}

// Call adds the request to the service's stream, which must exist (a
// service made it), and waits for its reply.
func (c *client) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	return c.pending.Call(ctx, req, c.maxBytes, func(id string, m brokered.Meta) error {
		err := c.rdb.XAdd(ctx, &goredis.XAddArgs{Stream: c.addr.Name, NoMkStream: true, MaxLen: c.s.maxLen, Approx: true,
			Values: entry(m, req.Body, fieldID, id, fieldReplyTo, c.replyTo)}).Err()
		switch {
		case errors.Is(err, goredis.Nil):
			return brokered.Unavailable("redis: no service reads stream %s at %s (it does not exist: is its node running?)", c.addr.Name, c.addr.Host)
		case err != nil:
			return brokered.Unavailable("redis: adding to stream %s: %w", c.addr.Name, err)
		}
		return nil
	})
}

// Close deletes the reply stream (if that fails, it expires), stops the
// reader and fails the calls still waiting.
func (c *client) Close() error {
	c.once.Do(func() {
		c.closing.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c.rdb.Del(ctx, c.replyTo)
		cancel()
		c.reader.Close()
		<-c.done
		c.pending.Fail(brokered.Unavailable("redis: the client is closed"))
		c.rdb.Close()
	})
	return nil
}
