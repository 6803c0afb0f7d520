// Package kafka is the kafka stack: request/reply over Kafka with
// github.com/twmb/franz-go. A service has a request topic, consumed by a
// consumer group named after it so that replicas share its partitions, and
// a reply topic. A caller's request carries a correlation id and the reply
// topic in record headers; each caller reads the reply topic from where it
// stood when the caller connected and takes the replies whose ids it is
// waiting for.
//
// Settings are for request/reply latency rather than throughput: producer
// linger 0, fetch max wait 10 ms (franz-go's minimum), acks all by default.
//
// Addresses are kafka://127.0.0.1:9092/TOPIC.
package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

func init() { transport.Register(Transport{}) }

// Transport is the kafka stack.
type Transport struct{}

func (Transport) Name() string { return "kafka" }

// Caps: a broker stack's, through Kafka; no per-request connections.
func (t Transport) Caps() transport.Caps {
	c := brokered.Caps("kafka", "kafka", t.options(), t.traits())
	c.PerRequest = perRequest
	return c
}

// traits are what kafka offers beyond its figures.
func (Transport) traits() transport.Traits {
	return transport.Traits{
		Decoupled: true,
		Durable:   "always: every record is written to the topic's log and kept for its retention (acks=all waits for the in-sync replicas)",
		Browser:   "browsers do not speak Kafka's protocol: a REST proxy goes in front",
		Notes:     []string{"a broker cluster to run (a JVM, hundreds of MiB)", "requests stay in the log: they can be replayed, and new consumers can read history", "consumers poll, which sets a latency floor for request/reply"},
	}
}

func (Transport) options() []transport.Option {
	return []transport.Option{
		{Name: "acks", Default: "all", Help: "producer acks: all (every in-sync replica), leader, or none", Check: transport.OneOf("all", "leader", "none")},
		{Name: "linger", Default: "0s", Help: "producer linger: how long a record waits for others to batch with", Check: transport.Duration},
		{Name: "fetch_max_wait", Default: "10ms", Help: "how long the broker holds a fetch for data (10ms is franz-go's minimum)", Check: transport.Duration},
		{Name: "partitions", Default: "4", Help: "partitions of a service's request topic (one-way: of the topic, at least one a consumer of a group): replicas of a service share them, so at most this many consume", Check: transport.PositiveInt},
		{Name: "idempotent", Default: "true", Help: "idempotent producer (acks all only): the broker drops a retried record it already has", Check: transport.Bool},
		{Name: "commit", Default: "periodic", Help: "one-way consumers commit the offsets of what they took every second (periodic) or after each record, synchronously (message)", Check: transport.OneOf("periodic", "message")},
		brokered.ServeOption,
	}
}

// Header names of the request/reply envelope.
const (
	headerCorrelation = "correlation-id"
	headerReplyTo     = "reply-to"
)

// Limits: bodies up to hopbench's 64 MiB and their envelope, within what
// hopbench's broker takes (message.max.bytes).
const (
	maxRecordBytes = 64<<20 + 1<<20
	maxFetchBytes  = 96 << 20
)

// setup is what both ends need: the endpoint, options read, client
// options.
type setup struct {
	brokered.Endpoint
	opts       []kgo.Opt
	partitions int32
	// commitEach: one-way consumers commit each record as they take it.
	commitEach bool
}

func (t Transport) setup(addr string, cfg transport.Config, server bool) (*setup, error) {
	e, err := brokered.Open(t, addr, cfg, server)
	if err != nil {
		return nil, err
	}
	opts, a := e.Options, e.Addr
	linger, _ := time.ParseDuration(opts["linger"])
	wait, _ := time.ParseDuration(opts["fetch_max_wait"])
	parts, _ := strconv.Atoi(opts["partitions"])
	s := &setup{Endpoint: e, partitions: int32(parts), opts: []kgo.Opt{
		kgo.SeedBrokers(a.Host),
		kgo.Dialer(brokered.TLSDial(cfg)),
		kgo.ProducerLinger(linger),
		// franz-go compresses batches with snappy by default; compression is
		// the stack's explicit choice (kafka+gzip compresses the body).
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		// Requests spread over the request topic's partitions, so replicas
		// of a service (a partition each, at least) share them; the default
		// sticky partitioner would keep them on one.
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
		kgo.FetchMaxWait(wait),
		kgo.ProducerBatchMaxBytes(maxRecordBytes),
		kgo.FetchMaxBytes(maxFetchBytes),
		kgo.FetchMaxPartitionBytes(maxFetchBytes),
		kgo.BrokerMaxReadBytes(2 * maxFetchBytes),
		kgo.MetadataMinAge(100 * time.Millisecond),
		// Records buffered for a broker that went away fail rather than
		// wait for it forever.
		kgo.RecordDeliveryTimeout(time.Minute),
	}}
	s.commitEach = opts["commit"] == "message"
	switch opts["acks"] {
	case "all":
		s.opts = append(s.opts, kgo.RequiredAcks(kgo.AllISRAcks()))
		if opts["idempotent"] == "false" {
			s.opts = append(s.opts, kgo.DisableIdempotentWrite())
		}
	case "leader":
		s.opts = append(s.opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	case "none":
		s.opts = append(s.opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	}
	return s, nil
}

// replyTopic is a new name for one client's reply topic: each client
// reads only the replies to its own calls, as an AMQP client's reply queue
// and a NATS client's inbox are its own.
func replyTopic(name string) string { return name + ".replies." + brokered.RandomID() }

// createTopic makes a topic if it is missing.
func (s *setup) createTopic(ctx context.Context, adm *kadm.Client, topic string, partitions int32) error {
	_, err := adm.CreateTopic(ctx, partitions, 1, nil, topic)
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return brokered.Unavailable("kafka: creating topic %s at %s: %w (is Kafka running? hopbench brokers up kafka)", topic, s.Addr.Host, err)
	}
	return nil
}

func toHeaders(m brokered.Meta, extra ...kgo.RecordHeader) []kgo.RecordHeader {
	hs := extra
	for k, v := range m {
		hs = append(hs, kgo.RecordHeader{Key: k, Value: []byte(v)})
	}
	return hs
}

func fromHeaders(hs []kgo.RecordHeader) (m brokered.Meta, correlation, replyTo string) {
	m = make(brokered.Meta, len(hs))
	for _, h := range hs {
		switch h.Key {
		case headerCorrelation:
			correlation = string(h.Value)
		case headerReplyTo:
			replyTo = string(h.Value)
		default:
			m[h.Key] = string(h.Value)
		}
	}
	return m, correlation, replyTo
}

// perRequest: a Kafka client is long-lived by design. It learns the
// cluster's metadata, keeps a connection to every broker it uses, and here
// owns a reply topic it creates on connecting and deletes on closing; one
// per call would measure topic administration, not a call.
const perRequest = ("kafka takes no per-request connections: a Kafka client learns the cluster's metadata, keeps its broker connections and owns a reply topic for its life, so a new one per call would measure topic administration, not a call")

type server struct {
	addr    brokered.Addr
	cl      *kgo.Client
	service *brokered.Service
	done    chan struct{}
	dials   *dialHealth
}

// dialHealth follows the client's connections to the broker: franz-go
// reconnects by itself, so the server cannot serve exactly while its last
// attempt to connect failed.
type dialHealth struct {
	mu      sync.Mutex
	lastErr error
}

// OnBrokerConnect implements kgo.HookBrokerConnect.
func (d *dialHealth) OnBrokerConnect(_ kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	d.mu.Lock()
	d.lastErr = err
	d.mu.Unlock()
}

func (d *dialHealth) err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lastErr
}

// Listen creates the service's topics, joins its consumer group and
// returns once it has been assigned partitions, so a request sent after
// Listen returns is served.
func (t Transport) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	s, err := t.setup(addr, cfg, true)
	if err != nil {
		return nil, err
	}
	assigned := make(chan struct{})
	var once bool
	dials := &dialHealth{}
	cl, err := kgo.NewClient(append(s.opts,
		kgo.WithHooks(dials),
		kgo.ConsumerGroup(s.Addr.Name),
		kgo.ConsumeTopics(s.Addr.Name),
		// The topic is new or the group has committed offsets; a new group
		// on an old topic starts at its beginning rather than miss requests
		// sent while it joined.
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
			if len(parts[s.Addr.Name]) > 0 && !once {
				once = true
				close(assigned)
			}
		}),
	)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	if err := s.createTopic(ctx, kadm.NewClient(cl), s.Addr.Name, s.partitions); err != nil {
		cl.Close()
		return nil, err
	}
	srv := &server{addr: s.Addr, cl: cl, service: brokered.NewService(s.Endpoint, h), done: make(chan struct{}), dials: dials}
	go srv.consume()
	select {
	case <-assigned:
		return srv, nil
	case <-ctx.Done():
		srv.Close()
		return nil, ctx.Err()
	case <-time.After(60 * time.Second):
		srv.Close()
		return nil, brokered.Unavailable("kafka: the consumer group %s was assigned no partition of %s within 60s", s.Addr.Name, s.Addr.Name)
	}
}

func (srv *server) consume() {
	defer close(srv.done)
	for {
		fetches := srv.cl.PollFetches(context.Background())
		if fetches.IsClientClosed() {
			return
		}
		fetches.EachRecord(func(r *kgo.Record) {
			meta, correlation, replyTo := fromHeaders(r.Headers)
			if replyTo == "" {
				return // not a request: nowhere to answer
			}
			srv.service.Take(meta, r.Value, func(ctx context.Context, meta brokered.Meta, reply []byte) {
				rec := &kgo.Record{Topic: replyTo, Value: reply,
					Headers: toHeaders(meta, kgo.RecordHeader{Key: headerCorrelation, Value: []byte(correlation)})}
				// Produced without waiting for the broker's ack, as a
				// plain consumer (and bench/bareloop's responder)
				// replies, under a context that never ends: franz-go
				// fails a buffered record whose context has ended (Serve
				// cancels its own as it returns) and, when that record
				// heads a batch, every reply batched behind it. A reply
				// too late for its caller is dropped by the caller; one
				// the broker cannot take fails after the client's
				// RecordDeliveryTimeout. Tried, not waited for: with the
				// client's buffer full the reply is dropped at once (its
				// caller times out) rather than holding the handler under
				// a context that never ends.
				srv.cl.TryProduce(context.WithoutCancel(ctx), rec, nil)
			}, nil)
		})
	}
}

func (srv *server) Addr() string { return srv.addr.String() }

// Health is unavailable while the client cannot connect to the broker.
func (srv *server) Health() error {
	if err := srv.dials.err(); err != nil {
		return brokered.Unavailable("kafka: cannot connect to Kafka at %s (%w): topic %s is not consumed", srv.addr.Host, err, srv.addr.Name)
	}
	return nil
}

// Close leaves the group, waits for the consuming goroutine, then ends the
// calls in flight and waits for them.
func (srv *server) Close() error {
	srv.cl.Close()
	<-srv.done
	srv.service.Close()
	return nil
}

type client struct {
	addr     brokered.Addr
	replies  string // this client's reply topic
	cl       *kgo.Client
	pending  *brokered.Pending
	maxBytes int
	done     chan struct{}
}

// Dial checks the service's topic exists, then makes the client's own
// reply topic and reads it; Close deletes it.
func (t Transport) Dial(ctx context.Context, target string, cfg transport.Config) (transport.Client, error) {
	s, err := t.setup(target, cfg, false)
	if err != nil {
		return nil, err
	}
	admin, err := kgo.NewClient(s.opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	defer admin.Close()
	adm := kadm.NewClient(admin)
	topics, err := adm.ListTopics(ctx, s.Addr.Name)
	if err != nil {
		return nil, brokered.Unavailable("kafka: reaching Kafka at %s: %w (is it running? hopbench brokers up kafka)", s.Addr.Host, err)
	}
	if !topics.Has(s.Addr.Name) {
		return nil, brokered.Unavailable("kafka: no service: topic %s does not exist at %s (start its node first)", s.Addr.Name, s.Addr.Host)
	}
	replies := replyTopic(s.Addr.Name)
	if err := s.createTopic(ctx, adm, replies, 1); err != nil {
		return nil, err
	}
	cl, err := s.readReplies(ctx, adm, replies)
	if err != nil {
		deleteTopic(adm, replies)
		return nil, brokered.Unavailable("kafka: reading %s: %w", replies, err)
	}
	c := &client{addr: s.Addr, replies: replies, cl: cl, pending: brokered.NewPending(), maxBytes: s.MaxBytes, done: make(chan struct{})}
	go c.receive()
	return c, nil
}

// readReplies waits for a new reply topic to be served and returns a
// client consuming it.
func (s *setup) readReplies(ctx context.Context, adm *kadm.Client, topic string) (*kgo.Client, error) {
	end, err := replyEnd(ctx, adm, topic)
	if err != nil {
		return nil, err
	}
	return kgo.NewClient(append(s.opts, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{
		topic: {0: kgo.NewOffset().At(end)},
	}))...)
}

// deleteTopic removes a client's reply topic, giving up after a few
// seconds (a broker gone away leaves it to the broker's data directory).
func deleteTopic(adm *kadm.Client, topic string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	adm.DeleteTopics(ctx, topic)
}

// topicWait bounds how long Dial waits for a reply topic it has just
// created to get a leader.
const topicWait = 15 * time.Second

// replyEnd is the end offset of the reply topic's one partition. A topic
// just created answers UNKNOWN_TOPIC_OR_PARTITION (or has no leader yet)
// until its leader is elected: such retriable errors are retried for up to
// topicWait.
func replyEnd(ctx context.Context, adm *kadm.Client, topic string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, topicWait)
	defer cancel()
	for pause := 10 * time.Millisecond; ; pause = min(2*pause, 500*time.Millisecond) {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err == nil {
			err = ends.Error()
		}
		if err == nil {
			end, ok := ends.Lookup(topic, 0)
			if ok {
				return end.Offset, nil
			}
			err = kerr.UnknownTopicOrPartition
		}
		if !kerr.IsRetriable(err) {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("%w (still after %s)", err, topicWait)
		case <-time.After(pause):
		}
	}
}

// receive hands each reply to the caller waiting for its correlation id;
// a reply nobody waits for (its call timed out) is dropped.
func (c *client) receive() {
	defer close(c.done)
	for {
		fetches := c.cl.PollFetches(context.Background())
		if fetches.IsClientClosed() {
			c.pending.Fail(brokered.Unavailable("kafka: client closed"))
			return
		}
		fetches.EachRecord(func(r *kgo.Record) {
			meta, correlation, _ := fromHeaders(r.Headers)
			c.pending.Deliver(correlation, brokered.Reply{Meta: meta, Body: r.Value})
		})
	}
}

func (c *client) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	return c.pending.Call(ctx, req, c.maxBytes, func(id string, m brokered.Meta) error {
		rec := &kgo.Record{Topic: c.addr.Name, Value: req.Body, Headers: toHeaders(m,
			kgo.RecordHeader{Key: headerCorrelation, Value: []byte(id)},
			kgo.RecordHeader{Key: headerReplyTo, Value: []byte(c.replies)})}
		// The node drops a request past its deadline.
		return produce(ctx, c.cl, "request", rec)
	})
}

// produce hands rec (a request or a one-way message: what) to the
// broker and waits for its ack or for ctx, whichever comes first.
// franz-go retries a produce in flight until it is delivered, whatever the
// context says; a broker gone away must not hold the caller. The record's
// own context never ends: franz-go fails a whole batch whose first
// record's context has, so a caller giving up would fail the records
// batched behind its own. TryProduce, since Produce would wait for room in
// a full buffer (a broker gone away): a full buffer fails at once as
// unavailable.
func produce(ctx context.Context, cl *kgo.Client, what string, rec *kgo.Record) error {
	produced := make(chan error, 1)
	cl.TryProduce(context.WithoutCancel(ctx), rec, func(_ *kgo.Record, err error) { produced <- err })
	var err error
	select {
	case err = <-produced:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		return produceError(ctx, rec.Topic, what, err)
	}
	return nil
}

func produceError(ctx context.Context, topic, what string, err error) error {
	switch {
	case ctx.Err() != nil:
		return &transport.Error{Code: transport.CodeDeadline, Msg: "producing the " + what + " to " + topic + ": " + err.Error(), Err: err}
	case errors.Is(err, kerr.MessageTooLarge) || errors.Is(err, kerr.RecordListTooLarge):
		return &transport.Error{Code: transport.CodeTooLarge, Msg: err.Error(), Err: err}
	case errors.Is(err, kgo.ErrMaxBuffered):
		return brokered.Unavailable("kafka: producing to %s: the client's buffer is full (is the broker there?): %w", topic, err)
	}
	return brokered.Unavailable("kafka: producing to %s: %w", topic, err)
}

// Close deletes the client's reply topic and disconnects.
func (c *client) Close() error {
	deleteTopic(kadm.NewClient(c.cl), c.replies)
	c.cl.Close()
	<-c.done
	return nil
}
