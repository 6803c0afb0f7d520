package nats_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/oneway/onewaytest"
)

func TestOneWay(t *testing.T) {
	addr := "nats://" + brokertest.Addrs["nats"] + "/"
	onewaytest.Run(t, onewaytest.Variant{Name: "core", Stack: "nats+proto", Addr: addr, AtMostOnce: true})
	for _, js := range []string{"memory", "file"} {
		onewaytest.Run(t, onewaytest.Variant{Name: "jetstream=" + js, Stack: "nats+proto", Addr: addr, Options: map[string]string{"jetstream": js}})
	}
}
