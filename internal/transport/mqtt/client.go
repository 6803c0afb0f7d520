package mqtt

import (
	"context"

	"github.com/eclipse/paho.golang/paho"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// noMatchingSubscribers is the PUBACK reason code (MQTT 5, 0x10) of a
// message no subscription took: a request no service serves.
const noMatchingSubscribers = 0x10

// client publishes requests and receives replies on a response topic of
// its own.
type client struct {
	addr       brokered.Addr
	conn       *conn
	qos        byte
	replyTopic string
	pending    *brokered.Pending
	maxBytes   int
}

// Dial connects and subscribes to the client's response topic; calls are
// matched to replies by correlation data.
func (t Transport) Dial(ctx context.Context, target string, cfg transport.Config) (transport.Client, error) {
	s, err := t.settings(target, cfg, false)
	if err != nil {
		return nil, err
	}
	c := &client{addr: s.Addr, qos: s.qos, pending: brokered.NewPending(), maxBytes: s.MaxBytes,
		replyTopic: s.Addr.Name + "/replies/" + brokered.RandomID()}
	deliver := func(p *paho.Publish) {
		if p.Topic == c.replyTopic && p.Properties != nil {
			c.pending.Deliver(string(p.Properties.CorrelationData), brokered.Reply{Meta: meta(p.Properties), Body: p.Payload})
		}
	}
	lost := func(err error) {
		c.pending.Fail(brokered.Unavailable("mqtt: the connection to Mosquitto at %s is lost: %v", s.Addr.Host, err))
	}
	if c.conn, err = dial(ctx, s.Addr, cfg, "client", deliver, lost); err != nil {
		return nil, err
	}
	if err = c.conn.checkQoS(s.qos); err == nil {
		err = c.conn.subscribe(ctx, c.replyTopic, s.qos)
	}
	if err != nil {
		c.conn.close()
		return nil, err
	}
	return c, nil
}

func (c *client) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	return c.pending.Call(ctx, req, c.maxBytes, func(id string, m brokered.Meta) error {
		p := &paho.Publish{Topic: c.addr.Name, QoS: c.qos, Payload: req.Body, Properties: properties(m)}
		p.Properties.ResponseTopic, p.Properties.CorrelationData = c.replyTopic, []byte(id)
		ack, err := c.conn.publish(ctx, p)
		switch {
		case transport.CodeOf(err) == transport.CodeTooLarge:
			return err
		case err != nil:
			return brokered.Unavailable("mqtt: publishing to %s: %w", c.addr.Name, err)
		case ack != nil && ack.ReasonCode == noMatchingSubscribers:
			// At QoS 1 and 2 the broker says so; at QoS 0 the call waits
			// for its deadline.
			return brokered.Unavailable("mqtt: no service subscribes to %s (the broker found no matching subscribers)", c.addr.Name)
		}
		return nil
	})
}

func (c *client) Close() error {
	c.conn.close()
	return nil
}
