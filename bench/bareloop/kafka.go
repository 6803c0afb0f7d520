package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Header names of hopbench's kafka request/reply envelope.
const (
	kafkaCorrelation = "correlation-id"
	kafkaReplyTo     = "reply-to"
)

// kafkaPartitions is the partitions of a request topic, hopbench's default.
const kafkaPartitions = 4

// kafkaOpts are hopbench's kafka stack's client options (at its defaults,
// internal/transport/kafka) that bear on latency and fairness, so that the
// bare pair and the node are compared on the same settings: linger 0,
// fetch max wait 10ms, no batch compression, requests spread round-robin
// over the partitions, acks all, and metadata refreshed soon enough to find
// a new reply topic.
func kafkaOpts(host string) []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(host),
		kgo.ProducerLinger(0),
		kgo.FetchMaxWait(10 * time.Millisecond),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.MetadataMinAge(100 * time.Millisecond),
	}
}

// createTopic makes topic if it is missing.
func createTopic(ctx context.Context, adm *kadm.Client, topic string, partitions int32) error {
	_, err := adm.CreateTopic(ctx, partitions, 1, nil, topic)
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("kafka: creating topic %s: %w", topic, err)
	}
	return nil
}

// serveKafka consumes the topic of target in the consumer group named
// after it, as hopbench's kafka node, and answers each request with its
// value; it is ready once the group has assigned it the topic's partitions.
func serveKafka(ctx context.Context, target string, ready func()) error {
	host, topic := splitTarget(target, "kafka")
	assigned := make(chan struct{})
	var once sync.Once
	cl, err := kgo.NewClient(append(kafkaOpts(host),
		kgo.ConsumerGroup(topic),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, parts map[string][]int32) {
			if len(parts[topic]) > 0 {
				once.Do(func() { close(assigned) })
			}
		}),
	)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := createTopic(ctx, kadm.NewClient(cl), topic, kafkaPartitions); err != nil {
		return err
	}
	done := make(chan struct{})
	go kafkaEcho(ctx, cl, done)
	select {
	case <-assigned:
		ready()
	case <-ctx.Done():
	case <-time.After(time.Minute):
		return fmt.Errorf("kafka: the consumer group %s was assigned no partition of %s within a minute", topic, topic)
	}
	<-done
	return nil
}

// kafkaEcho polls requests until ctx ends and produces each one's reply,
// then closes done.
func kafkaEcho(ctx context.Context, cl *kgo.Client, done chan struct{}) {
	defer close(done)
	for {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil || fetches.IsClientClosed() {
			return
		}
		fetches.EachRecord(func(r *kgo.Record) {
			if reply := kafkaReply(r); reply != nil {
				cl.Produce(ctx, reply, nil) // a reply lost leaves its call to its bound
			}
		})
	}
}

// kafkaReply is the reply to request r: its value, to the topic its
// reply-to header names, with its correlation-id header; nil without
// reply-to.
func kafkaReply(r *kgo.Record) *kgo.Record {
	reply := &kgo.Record{Value: r.Value}
	for _, h := range r.Headers {
		switch h.Key {
		case kafkaReplyTo:
			reply.Topic = string(h.Value)
		case kafkaCorrelation:
			reply.Headers = append(reply.Headers, h)
		case contentType:
			if *withHeaders {
				reply.Headers = append(reply.Headers, h)
			}
		}
	}
	if reply.Topic == "" {
		return nil
	}
	return reply
}

// kafkaCall is one request produced to the topic of target with a
// correlation id and the caller's reply topic in its headers, the reply
// read from that topic, as hopbench's kafka client; the reply topic is the
// caller's own, made here and deleted by the returned close. Calls fail
// once bound has passed.
func kafkaCall(target string, body []byte, bound time.Duration) (func(), func(context.Context) error) {
	host, topic := splitTarget(target, "kafka")
	replyTopic := topic + ".replies." + rand.Text()
	cl, err := kafkaReplies(host, replyTopic)
	if err != nil {
		fail(err)
	}
	r := newReplies(bound)
	done := make(chan struct{})
	go kafkaReceive(cl, r, done)
	closeIt := func() { deleteTopic(cl, replyTopic); cl.Close(); <-done }
	replyTo := kgo.RecordHeader{Key: kafkaReplyTo, Value: []byte(replyTopic)}
	return closeIt, func(ctx context.Context) error {
		id, wait, err := r.add()
		if err != nil {
			return err
		}
		rec := &kgo.Record{Topic: topic, Value: body, Headers: []kgo.RecordHeader{{Key: kafkaCorrelation, Value: []byte(id)}, replyTo}}
		if *withHeaders {
			for k, v := range hopbenchMeta() {
				rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
			}
		}
		cl.Produce(ctx, rec, func(_ *kgo.Record, err error) {
			if err != nil {
				r.deliver(id, err)
			}
		})
		return r.await(ctx, id, wait)
	}
}

// kafkaReplies makes the reply topic (one partition) and returns a client
// that reads it from its end.
func kafkaReplies(host, topic string) (*kgo.Client, error) {
	admin, err := kgo.NewClient(kafkaOpts(host)...)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	adm := kadm.NewClient(admin)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := createTopic(ctx, adm, topic, 1); err != nil {
		return nil, err
	}
	end, err := replyEnd(ctx, adm, topic)
	if err != nil {
		deleteTopic(admin, topic)
		return nil, fmt.Errorf("kafka: reading %s: %w", topic, err)
	}
	return kgo.NewClient(append(kafkaOpts(host), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{
		topic: {0: kgo.NewOffset().At(end)},
	}))...)
}

// replyEnd is the end offset of a new reply topic's one partition,
// retried while the topic is unknown or leaderless (its leader not yet
// elected), until ctx ends.
func replyEnd(ctx context.Context, adm *kadm.Client, topic string) (int64, error) {
	for {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err == nil {
			err = ends.Error()
		}
		if err == nil {
			if end, ok := ends.Lookup(topic, 0); ok {
				return end.Offset, nil
			}
			err = kerr.UnknownTopicOrPartition
		}
		if !kerr.IsRetriable(err) {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// kafkaReceive hands each reply to its call until the client closes, then
// fails the calls left and closes done.
func kafkaReceive(cl *kgo.Client, r *replies, done chan struct{}) {
	defer close(done)
	for {
		fetches := cl.PollFetches(context.Background())
		if fetches.IsClientClosed() {
			r.end(errors.New("kafka: client closed"))
			return
		}
		fetches.EachRecord(func(rec *kgo.Record) {
			for _, h := range rec.Headers {
				if h.Key == kafkaCorrelation {
					r.deliver(string(h.Value), nil)
				}
			}
		})
	}
}

// deleteTopic removes the caller's reply topic, giving up after a few
// seconds.
func deleteTopic(cl *kgo.Client, topic string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	kadm.NewClient(cl).DeleteTopics(ctx, topic)
}
