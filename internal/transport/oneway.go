package transport

import (
	"context"
	"fmt"
)

// Messenger is a broker stack that also carries one-way messages: a
// producer publishes and goes on, and consumers take the messages later
// (hopbench load --mode oneway). A stack's delivery settings (publisher
// confirms, acks, durable queues, JetStream) are its Options.
//
// The messages of one target reach every group subscribed to it; the
// subscribers of one group compete for them (a work queue), so a group
// per subscriber is a fan-out.
type Messenger interface {
	// Prepare makes target ready before anyone subscribes or publishes:
	// declares its queues or creates its topic or stream, as plan and
	// cfg.Options say.
	Prepare(ctx context.Context, target string, cfg Config, plan Plan) error
	// Publisher returns a publisher to target.
	Publisher(ctx context.Context, target string, cfg Config) (Publisher, error)
	// Subscribe hands target's messages for group to deliver, one at a
	// time per subscriber, until Close. A message deliver took (it
	// returns true) is settled with the broker (acknowledged, committed)
	// after it returns, when the stack's settings settle by hand; one it
	// refused (its consumer stopped) is not. deliver must not keep body.
	Subscribe(ctx context.Context, target, group string, cfg Config, deliver func(body []byte) bool) (Subscriber, error)
	// Remove deletes what Prepare made, so a broker does not keep a run's
	// messages for ever.
	Remove(ctx context.Context, target string, cfg Config, plan Plan) error
}

// Plan is who will consume a target's messages.
type Plan struct {
	// Groups are the subscription groups; each gets every message.
	Groups []string
	// Consumers is how many subscribers share each group.
	Consumers int
}

// Publisher publishes one-way messages to one target. Safe for use by one
// goroutine at a time; each producer has its own.
type Publisher interface {
	// Publish hands body to the broker with key (one producer's messages
	// share a key, so a broker that orders by key, as Kafka's partitions
	// do, keeps them in order) and returns when the broker has it as the
	// stack's settings say: written to the connection, or confirmed.
	Publish(ctx context.Context, key string, body []byte) error
	Close() error
}

// Subscriber is one consumer.
type Subscriber interface {
	// Close stops consuming: messages delivered and settled stay
	// consumed, the rest go back to the broker as its settings say.
	Close() error
	// Abort drops the connection without settling anything, as a
	// consumer that crashed would.
	Abort()
	// Err is why the subscriber has stopped taking messages (its
	// connection to the broker lost), nil while it takes them or while
	// its client library reconnects by itself.
	Err() error
}

// MessengerOf is the named stack's one-way side, or why it has none.
func MessengerOf(name string) (Messenger, error) {
	t, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	m, ok := t.(Messenger)
	if !ok {
		return nil, fmt.Errorf("%s carries no one-way messages: only broker stacks do (%s)", name, messengerNames())
	}
	return m, nil
}

func messengerNames() string {
	names := namesWhere(func(c Caps) bool { return c.OneWay })
	if len(names) == 0 {
		return "none registered"
	}
	return fmt.Sprint(names)
}
