package redis_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/oneway/onewaytest"
)

func TestOneWay(t *testing.T) {
	onewaytest.Run(t, onewaytest.Variant{Name: "streams", Stack: "redis+proto", Addr: "redis://" + brokertest.Addrs["redis"] + "/"})
}
