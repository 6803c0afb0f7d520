package kafka_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
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
