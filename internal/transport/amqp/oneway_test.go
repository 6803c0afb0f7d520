package amqp_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/oneway/onewaytest"
)

func TestOneWay(t *testing.T) {
	addr := "amqp://" + brokertest.Addrs["rabbitmq"] + "/"
	for _, v := range []onewaytest.Variant{
		{Name: "classic"},
		{Name: "confirm+persistent", Options: map[string]string{"confirm": "true", "persistent": "true"}},
		{Name: "quorum+confirm", Options: map[string]string{"queue": "quorum", "confirm": "true"}},
		{Name: "ack=auto", Options: map[string]string{"ack": "auto"}, AtMostOnce: true},
	} {
		v.Stack, v.Addr = "amqp+proto", addr
		onewaytest.Run(t, v)
	}
}
