package kafka_test

import (
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/oneway"
	"github.com/hopbench/hopbench/internal/oneway/onewaytest"
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
