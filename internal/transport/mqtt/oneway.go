package mqtt

import (
	"context"
	"fmt"

	"github.com/eclipse/paho.golang/paho"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// One-way messages are published to the target's topic at the qos
// option's quality of service; each group is a shared subscription
// ($share/GROUP/TOPIC) whose subscribers Mosquitto gives the messages in
// turn. A message is acknowledged (PUBACK, PUBCOMP) once its subscriber
// took it. Sessions start clean and end with their connection: what
// Mosquitto had sent a subscriber that crashed and not had acknowledged is
// not given to another, and counts lost.

// Prepare has nothing to make: a topic exists while it is subscribed to.
func (Transport) Prepare(context.Context, string, transport.Config, transport.Plan) error { return nil }

// Remove has nothing to delete: no message is retained.
func (Transport) Remove(context.Context, string, transport.Config, transport.Plan) error { return nil }

type publisher struct {
	c     *conn
	topic string
	qos   byte
}

// Publisher publishes on a connection of its own; at QoS 1 and 2 Publish
// waits for the broker's acknowledgement.
func (t Transport) Publisher(ctx context.Context, target string, cfg transport.Config) (transport.Publisher, error) {
	s, err := t.settings(target, cfg, false)
	if err != nil {
		return nil, err
	}
	c, err := dial(ctx, s.Addr, cfg, "publisher", func(*paho.Publish) {}, nil)
	if err != nil {
		return nil, err
	}
	if err := c.checkQoS(s.qos); err != nil {
		c.close()
		return nil, err
	}
	return &publisher{c: c, topic: s.Addr.Name, qos: s.qos}, nil
}

func (p *publisher) Publish(ctx context.Context, _ string, body []byte) error {
	ack, err := p.c.publish(ctx, &paho.Publish{Topic: p.topic, QoS: p.qos, Payload: body})
	switch {
	case err != nil:
		return brokered.Unavailable("mqtt: publishing to %s: %w", p.topic, err)
	case ack != nil && ack.ReasonCode >= 0x80:
		return brokered.Unavailable("mqtt: the broker refused a message to %s (reason code %#x)", p.topic, ack.ReasonCode)
	}
	return nil
}

func (p *publisher) Close() error {
	p.c.close()
	return nil
}

type subscriber struct{ c *conn }

// Subscribe subscribes, on a connection of its own, in the group's shared
// subscription.
func (t Transport) Subscribe(ctx context.Context, target, group string, cfg transport.Config, deliver func([]byte) bool) (transport.Subscriber, error) {
	s, err := t.settings(target, cfg, false)
	if err != nil {
		return nil, err
	}
	topic := s.Addr.Name
	c, err := dial(ctx, s.Addr, cfg, "consumer", func(p *paho.Publish) {
		if p.Topic == topic {
			deliver(p.Payload)
		}
	}, nil)
	if err != nil {
		return nil, err
	}
	if err = c.checkQoS(s.qos); err == nil {
		err = c.subscribe(ctx, fmt.Sprintf("$share/%s/%s", group, topic), s.qos)
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return &subscriber{c: c}, nil
}

func (s *subscriber) Close() error {
	s.c.close()
	return nil
}

// Abort closes the connection: with a clean session, what the broker had
// sent it unacknowledged goes with it.
func (s *subscriber) Abort() { s.c.close() }

// Err: a connection is never re-opened.
func (s *subscriber) Err() error { return s.c.health() }

var _ transport.Messenger = Transport{}
