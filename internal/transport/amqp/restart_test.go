package amqp_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/oneway"
	"github.com/hopbench/hopbench/internal/oneway/onewaytest"
	"github.com/hopbench/hopbench/internal/results"
)

// A broker killed (SIGKILL) mid-run and started again: with durable
// queues, persistent messages and publisher confirms nothing the broker
// confirmed is lost; without them the loss is counted. Either way every
// message is accounted for, and the publishers and consumers carry on
// over the restarted broker.
func TestOneWayAcrossABrokerKilledAndRestarted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills RabbitMQ")
	}
	for _, c := range []struct {
		name    string
		options map[string]string
		durable bool
	}{
		{"durable", map[string]string{"persistent": "true", "confirm": "true"}, true},
		{"transient", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ow := killAndRestart(t, c.options)
			if ow.Reconnects < 3 {
				t.Errorf("%d connections made again: want the publisher's and both consumers'", ow.Reconnects)
			}
			if c.durable && ow.Lost != 0 {
				t.Errorf("lost %d with durable settings: every confirmed message survives a restart", ow.Lost)
			}
			if ow.PublishFailed == 0 {
				t.Errorf("no publish failed while the broker was down")
			}
		})
	}
}

// killAndRestart runs a one-way load over a RabbitMQ of its own, kills it
// 2 s into the window and starts it again on the same data.
func killAndRestart(t *testing.T, options map[string]string) *results.OneWay {
	cfg := brokertest.Config(t)
	ctx := context.Background()
	b, err := broker.Start(ctx, "rabbitmq", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	v := onewaytest.Variant{Name: "restart", Stack: "amqp+proto", Addr: "amqp://" + b.Addr + "/", Options: options}
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		time.Sleep(2500 * time.Millisecond) // the 200 ms warm-up and 2 s
		syscall.Kill(b.PID, syscall.SIGKILL)
		for !b.Gone() {
			time.Sleep(50 * time.Millisecond)
		}
		b.Close()
		began := time.Now()
		if b, err = broker.Start(ctx, "rabbitmq", cfg); err != nil {
			t.Error(err)
		}
		t.Logf("RabbitMQ killed and started again in %v", time.Since(began))
	}()
	// Long enough for RabbitMQ to start again (several seconds here) and
	// take publishes for a while before the window ends.
	ow := onewaytest.Measure(t, v, oneway.Config{Consumers: 2, Drain: 15 * time.Second}, 200, 20*time.Second)
	// The restart is the test's: on a busy machine RabbitMQ's start
	// outlasted the window, and its failure, reported after the test had
	// ended, panicked the package.
	<-restarted
	onewaytest.CheckAddsUp(t, ow)
	return ow
}
