package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
)

// A client dialling a service whose topics were made a moment ago meets
// a partition with no leader yet (UNKNOWN_TOPIC_OR_PARTITION, seen failing
// a chain of five in CI): replyEnd waits for it instead of failing the dial.
func TestReplyEndOfATopicJustMade(t *testing.T) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokertest.Addrs["kafka"]), kgo.MetadataMinAge(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range 10 {
		topic := fmt.Sprintf("hopbench.replyend.%d.%d", time.Now().UnixNano(), i)
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
		end, err := replyEnd(ctx, adm, topic)
		if err != nil {
			t.Fatalf("topic %s, made just now: %v", topic, err)
		}
		if end != 0 {
			t.Fatalf("topic %s, made just now, ends at %d; want 0", topic, end)
		}
	}
	// The same wait, made certain: the topic is made only once the broker
	// has told the waiting client that it does not exist.
	late := fmt.Sprintf("hopbench.replyend.%d.late", time.Now().UnixNano())
	told := metadataRead(make(chan struct{}, 1))
	waiter, err := kgo.NewClient(kgo.SeedBrokers(brokertest.Addrs["kafka"]), kgo.WithHooks(told))
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	type ended struct {
		end int64
		err error
	}
	got := make(chan ended, 1)
	go func() {
		end, err := replyEnd(ctx, kadm.NewClient(waiter), late)
		got <- ended{end, err}
	}()
	<-told
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, late); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r.err != nil || r.end != 0 {
		t.Fatalf("topic %s, made after the broker said it did not exist: end %d, %v; want 0, no error", late, r.end, r.err)
	}
	// A topic that never comes is an error, not a wait past the caller's
	// deadline.
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	if _, err := replyEnd(short, adm, "hopbench.replyend.never"); err == nil {
		t.Fatal("end of a topic that does not exist: no error")
	}
}

// metadataRead signals (without blocking) each metadata reply a client
// reads: before the topic is made, each one says it does not exist.
type metadataRead chan struct{}

func (m metadataRead) OnBrokerRead(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if key == (&kmsg.MetadataRequest{}).Key() && err == nil {
		select {
		case m <- struct{}{}:
		default:
		}
	}
}
