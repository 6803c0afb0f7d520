package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

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
	// The same wait, made certain: the topic comes only after the call.
	late := fmt.Sprintf("hopbench.replyend.%d.late", time.Now().UnixNano())
	made := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, err := adm.CreateTopic(ctx, 1, 1, nil, late)
		made <- err
	}()
	if end, err := replyEnd(ctx, adm, late); err != nil || end != 0 {
		t.Fatalf("topic %s, made 300 ms after the call: end %d, %v; want 0, no error", late, end, err)
	}
	if err := <-made; err != nil {
		t.Fatal(err)
	}
	// A topic that never comes is an error, not a wait past the caller's
	// deadline.
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	if _, err := replyEnd(short, adm, "hopbench.replyend.never"); err == nil {
		t.Fatal("end of a topic that does not exist: no error")
	}
}
