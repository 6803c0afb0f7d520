package kafka_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/oneway"
	"github.com/hopbench/hopbench/internal/oneway/onewaytest"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/kafka"
)

// Under -short the broker is franz-go's kfake, which checks the protocol
// and measures nothing.
func TestOneWay(t *testing.T) {
	addr := "kafka://" + brokertest.Addrs["kafka"] + "/"
	for _, v := range []onewaytest.Variant{
		{Name: "acks=all"},
		{Name: "acks=leader+commit=message", Options: map[string]string{"acks": "leader", "commit": "message"}},
	} {
		v.Stack, v.Addr = "kafka+proto", addr
		onewaytest.Run(t, v)
	}
}

// A producer that serializes every record (encode each) publishes JSON
// the consumers read back, each message accounted for.
func TestOneWayEncodingEveryMessage(t *testing.T) {
	v := onewaytest.Variant{Name: "json encode each", Stack: "kafka+json", Addr: "kafka://" + brokertest.Addrs["kafka"] + "/"}
	onewaytest.CheckNothingLost(t, onewaytest.Measure(t, v, oneway.Config{Consumers: 1, EncodeEach: true}, 500, time.Second))
}

// A publish that gives up while its record lingers fails no other
// producer's publish batched behind it (franz-go fails a batch whose first
// record's context has ended).
func TestAPublishGivenUpLosesNoOther(t *testing.T) {
	addr := "kafka://" + brokertest.Addrs["kafka"] + "/hopbench.giveup." + strconv.FormatInt(time.Now().UnixNano(), 36)
	cfg := transport.Config{Options: map[string]string{"linger": "500ms", "partitions": "1"}}
	tr := kafka.Transport{}
	ctx := context.Background()
	if err := tr.Prepare(ctx, addr, cfg, transport.Plan{Consumers: 1}); err != nil {
		t.Fatal(err)
	}
	defer tr.Remove(ctx, addr, cfg, transport.Plan{})
	pub, err := tr.Publisher(ctx, addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	late := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
		defer cancel()
		late <- pub.Publish(ctx, "0", []byte("late"))
	}()
	time.Sleep(50 * time.Millisecond) // the late publish's record is lingering
	onTime, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pub.Publish(onTime, "1", []byte("on time")); err != nil {
		t.Fatalf("a publish with 10s to go, batched behind one that gave up after 150ms: %v", err)
	}
	// Unavailable, so that the one-way run reopens its publisher.
	if err := <-late; transport.CodeOf(err) != transport.CodeUnavailable || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a publish with 150ms to go, its record lingering 500ms: %v; want it unavailable, its deadline exceeded", err)
	}
}
