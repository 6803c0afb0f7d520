package nats

import (
	"context"

	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// One-way messages ride core NATS (at most once: a message no
// subscriber is there for, or one a slow subscriber's buffer cannot
// hold, is gone) or JetStream (a stream stores them; each group is a
// durable consumer whose messages are acknowledged one by one).
const (
	jetStreamOff    = "off"
	jetStreamMemory = "memory"
	jetStreamFile   = "file"
)

// JetStreamOption selects core NATS or JetStream for one-way messages.
var JetStreamOption = transport.Option{Name: "jetstream", Default: jetStreamOff,
	Help:  "one-way messages: off (core NATS, at most once), or JetStream storing them in memory or file, each group a durable consumer acknowledging every message",
	Check: transport.OneOf(jetStreamOff, jetStreamMemory, jetStreamFile)}

// ackWait is how long JetStream waits for a consumer's ack before it
// gives the message to another member of its group: a consumer that
// crashed holds its messages this long.
const ackWait = 5 * time.Second

// oneway is a one-way target's name and settings.
type oneway struct {
	a         brokered.Addr
	jetStream string
}

func onewayOf(target string, cfg transport.Config) (oneway, error) {
	e, err := brokered.Open(Transport{}, target, cfg, false)
	return oneway{a: e.Addr, jetStream: e.Options[JetStreamOption.Name]}, err
}

// stream opens a JetStream context on a new connection.
func (o oneway) stream(cfg transport.Config, role string) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := connect(o.a, cfg, role)
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("nats: JetStream: %w", err)
	}
	return nc, js, nil
}

// admin runs f with a JetStream context on a connection of its own;
// core NATS has nothing to administer.
func admin(target string, cfg transport.Config, f func(o oneway, js jetstream.JetStream) error) error {
	o, err := onewayOf(target, cfg)
	if err != nil || o.jetStream == jetStreamOff {
		return err
	}
	nc, js, err := o.stream(cfg, "admin")
	if err != nil {
		return err
	}
	defer nc.Close()
	return f(o, js)
}

// Prepare creates the stream and a durable consumer a group (JetStream).
func (Transport) Prepare(ctx context.Context, target string, cfg transport.Config, plan transport.Plan) error {
	return admin(target, cfg, func(o oneway, js jetstream.JetStream) error {
		storage := jetstream.FileStorage
		if o.jetStream == jetStreamMemory {
			storage = jetstream.MemoryStorage
		}
		if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: o.a.Name, Subjects: []string{o.a.Name}, Storage: storage}); err != nil {
			return fmt.Errorf("nats: creating stream %s (is JetStream on? hopbench's NATS has it): %w", o.a.Name, err)
		}
		for _, g := range plan.Groups {
			cc := jetstream.ConsumerConfig{Durable: g, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait}
			if _, err := js.CreateOrUpdateConsumer(ctx, o.a.Name, cc); err != nil {
				return fmt.Errorf("nats: creating consumer %s on %s: %w", g, o.a.Name, err)
			}
		}
		return nil
	})
}

// Remove deletes the stream (JetStream).
func (Transport) Remove(ctx context.Context, target string, cfg transport.Config, _ transport.Plan) error {
	return admin(target, cfg, func(o oneway, js jetstream.JetStream) error { return js.DeleteStream(ctx, o.a.Name) })
}

type publisher struct {
	nc      *nats.Conn
	js      jetstream.JetStream // nil: core NATS
	subject string
}

// Publisher publishes on a connection of its own: core NATS hands each
// message to the connection, JetStream waits for the stream's ack.
func (Transport) Publisher(_ context.Context, target string, cfg transport.Config) (transport.Publisher, error) {
	o, err := onewayOf(target, cfg)
	if err != nil {
		return nil, err
	}
	if o.jetStream == jetStreamOff {
		nc, err := connect(o.a, cfg, "publisher")
		return &publisher{nc: nc, subject: o.a.Name}, err
	}
	nc, js, err := o.stream(cfg, "publisher")
	return &publisher{nc: nc, js: js, subject: o.a.Name}, err
}

func (p *publisher) Publish(ctx context.Context, _ string, body []byte) error {
	var err error
	if p.js != nil {
		_, err = p.js.Publish(ctx, p.subject, body)
	} else {
		err = p.nc.Publish(p.subject, body)
	}
	if err != nil {
		return brokered.Unavailable("nats: publishing to %s: %w", p.subject, err)
	}
	return nil
}

func (p *publisher) Close() error {
	p.nc.Close()
	return nil
}

type subscriber struct {
	nc   *nats.Conn
	stop func()
}

// Subscribe: core NATS subscribes in a queue group named after group
// (each group gets every message, its members share them); JetStream
// consumes the group's durable consumer.
func (Transport) Subscribe(_ context.Context, target, group string, cfg transport.Config, deliver func([]byte) bool) (transport.Subscriber, error) {
	o, err := onewayOf(target, cfg)
	if err != nil {
		return nil, err
	}
	if o.jetStream == jetStreamOff {
		return coreSubscribe(o, group, cfg, deliver)
	}
	nc, js, err := o.stream(cfg, "consumer")
	if err != nil {
		return nil, err
	}
	c, err := js.Consumer(context.Background(), o.a.Name, group)
	if err == nil {
		var cc jetstream.ConsumeContext
		cc, err = c.Consume(func(m jetstream.Msg) {
			if deliver(m.Data()) {
				m.Ack()
			}
		})
		if err == nil {
			return &subscriber{nc: nc, stop: cc.Stop}, nil
		}
	}
	nc.Close()
	return nil, fmt.Errorf("nats: consuming %s on %s: %w", group, o.a.Name, err)
}

func coreSubscribe(o oneway, group string, cfg transport.Config, deliver func([]byte) bool) (transport.Subscriber, error) {
	nc, err := connect(o.a, cfg, "consumer")
	if err != nil {
		return nil, err
	}
	sub, err := nc.QueueSubscribe(o.a.Name, group, func(m *nats.Msg) { deliver(m.Data) })
	if err == nil {
		err = nc.Flush() // subscribed before the first publish
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("nats: subscribing to %s: %w", o.a.Name, err)
	}
	return &subscriber{nc: nc, stop: func() { sub.Unsubscribe() }}, nil
}

func (s *subscriber) Close() error {
	s.stop()
	s.nc.Close()
	return nil
}

// Err: the connection never reconnects (see connect).
func (s *subscriber) Err() error {
	if s.nc.IsConnected() {
		return nil
	}
	return brokered.Unavailable("nats: the consumer's connection is lost: %v", s.nc.LastError())
}

// Abort closes the connection at once: JetStream gives the unacknowledged
// messages to the group's other members after its ack wait.
func (s *subscriber) Abort() { s.nc.Close() }

var _ transport.Messenger = Transport{}
