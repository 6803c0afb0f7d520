package redis

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// One-way messages are entries of one stream (XADD, trimmed with MAXLEN ~
// as the maxlen option says: a backlog past it loses its oldest entries,
// and the run counts them lost); each group is a consumer group of the
// stream, read from its start with XREADGROUP, each entry acknowledged
// (XACK) once its consumer took it. Entries a consumer took and never
// acknowledged (it crashed) are claimed by the group's others once idle
// for claimIdle (XAUTOCLAIM).

// claimIdle is how long an entry delivered and not acknowledged waits
// before another consumer of its group claims it.
const claimIdle = 5 * time.Second

func onewayOf(target string, cfg transport.Config) (brokered.Addr, settings, error) {
	e, err := brokered.Open(Transport{}, target, cfg, false)
	return e.Addr, settingsOf(e.Options), err
}

// Prepare creates the stream and a consumer group a group, from its start.
func (Transport) Prepare(ctx context.Context, target string, cfg transport.Config, plan transport.Plan) error {
	a, _, err := onewayOf(target, cfg)
	if err != nil {
		return err
	}
	rdb := newClient(a, cfg, "admin", 1)
	defer rdb.Close()
	for _, g := range plan.Groups {
		err := rdb.XGroupCreateMkStream(ctx, a.Name, g, "0").Err()
		if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
			return brokered.Unavailable("redis: creating group %s of %s: %w (is it running? hopbench brokers up redis)", g, a.Name, err)
		}
	}
	return nil
}

// Remove deletes the stream, its groups with it.
func (Transport) Remove(ctx context.Context, target string, cfg transport.Config, _ transport.Plan) error {
	a, _, err := onewayOf(target, cfg)
	if err != nil {
		return err
	}
	rdb := newClient(a, cfg, "admin", 1)
	defer rdb.Close()
	return rdb.Del(ctx, a.Name).Err()
}

type publisher struct {
	rdb    *goredis.Client
	stream string
	maxLen int64
}

// Publisher adds entries on a client of its own; Publish returns when
// Redis has added the entry.
func (Transport) Publisher(ctx context.Context, target string, cfg transport.Config) (transport.Publisher, error) {
	a, s, err := onewayOf(target, cfg)
	if err != nil {
		return nil, err
	}
	rdb := newClient(a, cfg, "publisher", 0)
	if err := ping(ctx, a, rdb); err != nil {
		rdb.Close()
		return nil, err
	}
	return &publisher{rdb: rdb, stream: a.Name, maxLen: s.maxLen}, nil
}

func (p *publisher) Publish(ctx context.Context, _ string, body []byte) error {
	args := &goredis.XAddArgs{Stream: p.stream, MaxLen: p.maxLen, Approx: true, Values: []any{fieldBody, body}}
	if err := p.rdb.XAdd(ctx, args).Err(); err != nil {
		return brokered.Unavailable("redis: adding to %s: %w", p.stream, err)
	}
	return nil
}

func (p *publisher) Close() error { return p.rdb.Close() }

type subscriber struct {
	rdb     *goredis.Client
	stream  string
	group   string
	name    string
	deliver func([]byte) bool
	cancel  context.CancelFunc
	done    sync.WaitGroup
	mu      sync.Mutex
	err     error
}

// Subscribe reads the group's new entries as a consumer of its own name,
// acknowledging each one it took, and claims entries idle in the group.
func (Transport) Subscribe(ctx context.Context, target, group string, cfg transport.Config, deliver func([]byte) bool) (transport.Subscriber, error) {
	a, _, err := onewayOf(target, cfg)
	if err != nil {
		return nil, err
	}
	rdb := newClient(a, cfg, "consumer", readerPool)
	if err := ping(ctx, a, rdb); err != nil {
		rdb.Close()
		return nil, err
	}
	rctx, cancel := context.WithCancel(context.Background())
	s := &subscriber{rdb: rdb, stream: a.Name, group: group, name: "hopbench-" + brokered.RandomID(), deliver: deliver, cancel: cancel}
	s.done.Add(1)
	go s.read(rctx)
	return s, nil
}

// read takes entries until ctx ends or the connection is lost.
func (s *subscriber) read(ctx context.Context) {
	defer s.done.Done()
	claimed := time.Now()
	for ctx.Err() == nil {
		res, err := s.rdb.XReadGroup(ctx, &goredis.XReadGroupArgs{Group: s.group, Consumer: s.name,
			Streams: []string{s.stream, ">"}, Count: readBatch, Block: 100 * time.Millisecond}).Result()
		if err != nil && !errors.Is(err, goredis.Nil) {
			s.fail(ctx, err)
			return
		}
		for _, st := range res {
			s.take(ctx, st.Messages)
		}
		if time.Since(claimed) >= time.Second {
			s.claim(ctx)
			claimed = time.Now()
		}
	}
}

// take delivers entries and acknowledges, in one round trip, those taken.
func (s *subscriber) take(ctx context.Context, msgs []goredis.XMessage) {
	var ids []string
	for _, m := range msgs {
		body, _ := m.Values[fieldBody].(string)
		if s.deliver([]byte(body)) {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) > 0 {
		s.rdb.XAck(ctx, s.stream, s.group, ids...)
	}
}

// claim takes the group's entries delivered to a consumer and idle past
// claimIdle (one that crashed holds them).
func (s *subscriber) claim(ctx context.Context) {
	msgs, _, err := s.rdb.XAutoClaim(ctx, &goredis.XAutoClaimArgs{Stream: s.stream, Group: s.group, Consumer: s.name,
		MinIdle: claimIdle, Start: "0-0", Count: readBatch}).Result()
	if err == nil {
		s.take(ctx, msgs)
	}
}

func (s *subscriber) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	s.err = brokered.Unavailable("redis: reading %s: %w", s.stream, err)
	s.mu.Unlock()
}

// Close stops reading; what was taken is acknowledged already.
func (s *subscriber) Close() error {
	s.cancel()
	s.done.Wait()
	return s.rdb.Close()
}

// Abort drops the connection: what the consumer was delivered and had
// not acknowledged stays pending in its group until another claims it.
func (s *subscriber) Abort() { s.Close() }

// Err is why the consumer stopped reading (its connection lost).
func (s *subscriber) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

var _ transport.Messenger = Transport{}
