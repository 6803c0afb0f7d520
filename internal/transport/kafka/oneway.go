package kafka

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// One-way messages are records of one topic, keyed by producer (a
// producer's records share a partition, in order); each group is a
// consumer group reading it from the start. Consumers commit the offsets
// of the records they took, every second or record by record (option
// commit), and when their partitions are taken from them.

// onewaySetup is setup for a one-way target: records go to the
// partition of their key.
func onewaySetup(target string, cfg transport.Config) (*setup, error) {
	s, err := Transport{}.setup(target, cfg, false)
	if err != nil {
		return nil, err
	}
	s.opts = append(s.opts, kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	return s, nil
}

// admin runs f with an admin client of the target's broker.
func admin(ctx context.Context, target string, cfg transport.Config, f func(*setup, *kadm.Client) error) error {
	s, err := onewaySetup(target, cfg)
	if err != nil {
		return err
	}
	cl, err := kgo.NewClient(s.opts...)
	if err != nil {
		return fmt.Errorf("kafka: %w", err)
	}
	defer cl.Close()
	return f(s, kadm.NewClient(cl))
}

// Prepare creates the topic, with a partition for each consumer of a
// group at least.
func (Transport) Prepare(ctx context.Context, target string, cfg transport.Config, plan transport.Plan) error {
	return admin(ctx, target, cfg, func(s *setup, adm *kadm.Client) error {
		return s.createTopic(ctx, adm, s.Addr.Name, max(s.partitions, int32(plan.Consumers)))
	})
}

// Remove deletes the topic, and the groups with it.
func (Transport) Remove(ctx context.Context, target string, cfg transport.Config, plan transport.Plan) error {
	return admin(ctx, target, cfg, func(s *setup, adm *kadm.Client) error {
		if _, err := adm.DeleteTopics(ctx, s.Addr.Name); err != nil {
			return err
		}
		_, err := adm.DeleteGroups(ctx, plan.Groups...)
		return err
	})
}

type publisher struct {
	cl    *kgo.Client
	topic string
}

// Publisher produces with the stack's acks, linger and idempotence;
// Publish waits for the broker's ack.
func (Transport) Publisher(_ context.Context, target string, cfg transport.Config) (transport.Publisher, error) {
	s, err := onewaySetup(target, cfg)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(s.opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	return &publisher{cl: cl, topic: s.Addr.Name}, nil
}

// Publish waits for the broker's ack or for ctx (produce). A message
// whose publish gave up may still be delivered: the run counts it as
// unconfirmed if it is consumed. A publish given up is unavailable, as it
// was when it produced synchronously: the one-way run reopens its
// publisher on that class (a broker restarted).
func (p *publisher) Publish(ctx context.Context, key string, body []byte) error {
	err := produce(ctx, p.cl, "message", &kgo.Record{Topic: p.topic, Key: []byte(key), Value: body})
	if transport.CodeOf(err) == transport.CodeDeadline {
		return brokered.Unavailable("kafka: %w", err)
	}
	return err
}

func (p *publisher) Close() error {
	p.cl.Close()
	return nil
}

type subscriber struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	done   sync.WaitGroup
	each   bool
	// aborted: the consumer crashed, and commits nothing more.
	aborted atomic.Bool
	mu      sync.Mutex
	taken   map[int32]*kgo.Record // the last record taken of each partition, not committed yet
}

// take notes r as taken, to be committed.
func (s *subscriber) take(r *kgo.Record) {
	s.mu.Lock()
	s.taken[r.Partition] = r
	s.mu.Unlock()
}

// commitTaken commits the offsets of the records taken since the last
// commit, unless the consumer crashed.
func (s *subscriber) commitTaken(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aborted.Load() || len(s.taken) == 0 {
		return
	}
	rs := make([]*kgo.Record, 0, len(s.taken))
	for _, r := range s.taken {
		rs = append(rs, r)
	}
	if s.cl.CommitRecords(ctx, rs...) == nil {
		clear(s.taken)
	}
}

// Subscribe joins the group's consumer group, reading from the start of
// the topic (it is the run's own).
func (Transport) Subscribe(_ context.Context, target, group string, cfg transport.Config, deliver func([]byte) bool) (transport.Subscriber, error) {
	s, err := onewaySetup(target, cfg)
	if err != nil {
		return nil, err
	}
	sub := &subscriber{each: s.commitEach, taken: map[int32]*kgo.Record{}}
	assigned, once := make(chan struct{}), sync.Once{}
	opts := append(s.opts, kgo.ConsumerGroup(group), kgo.ConsumeTopics(s.Addr.Name),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) { once.Do(func() { close(assigned) }) }),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit(),
		// Eager, as the Java client's default (range) is: a consumer
		// joining moves partitions in one rebalance, done before Subscribe
		// returns. franz-go's default (cooperative-sticky) told the joining
		// consumer it was assigned (nothing) in its first round and moved
		// partitions in a second, during the run: a pause of 300-500 ms in
		// the consumers, end-to-end p99 ~300 ms at 1 000 messages/s.
		kgo.Balancers(kgo.RangeBalancer()),
		kgo.OnPartitionsRevoked(func(ctx context.Context, _ *kgo.Client, _ map[string][]int32) { sub.commitTaken(ctx) }))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sub.cl, sub.cancel = cl, cancel
	sub.done.Add(1)
	go sub.poll(ctx, deliver)
	// Joined before it returns: a group still assigning partitions when
	// the first messages are published holds them back, and the run would
	// time the join.
	select {
	case <-assigned:
		return sub, nil
	case <-time.After(joinWait):
		sub.Close()
		return nil, brokered.Unavailable("kafka: consumer group %s was assigned no partition of %s within %v", group, s.Addr.Name, joinWait)
	}
}

// joinWait bounds how long a consumer waits for its group to assign it
// partitions.
const joinWait = 30 * time.Second

// poll takes records until ctx ends, noting (or committing) each one
// deliver took, and committing them each second.
func (s *subscriber) poll(ctx context.Context, deliver func([]byte) bool) {
	defer s.done.Done()
	last := time.Now()
	for ctx.Err() == nil {
		fs := s.cl.PollFetches(ctx)
		fs.EachRecord(func(r *kgo.Record) {
			if !deliver(r.Value) {
				return
			}
			s.take(r)
			if s.each {
				s.commitTaken(ctx)
			}
		})
		if time.Since(last) >= time.Second {
			s.commitTaken(ctx)
			last = time.Now()
		}
	}
}

// Close stops polling, commits what was taken and leaves the group.
func (s *subscriber) Close() error {
	s.cancel()
	s.done.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.commitTaken(ctx)
	s.cl.Close()
	return nil
}

// Err is nil: franz-go reconnects to the broker by itself.
func (s *subscriber) Err() error { return nil }

// Abort stops polling and leaves the group without committing: another
// member of the group reads again from the last commit, as after a
// crash (whose session would expire rather than leave).
func (s *subscriber) Abort() {
	s.aborted.Store(true)
	s.cancel()
	s.done.Wait()
	s.cl.Close()
}

var _ transport.Messenger = Transport{}
