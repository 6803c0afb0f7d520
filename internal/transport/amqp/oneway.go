package amqp

import (
	"context"
	"fmt"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// One-way messages go to a fanout exchange named after the target; each
// group is a queue bound to it (NAME.GROUP), which the group's consumers
// share. Options: persistent (durable exchange and queues, persistent
// messages), confirm (publisher confirms), queue (classic or quorum),
// ack (manual or auto) and prefetch.

// onewayOf reads a one-way target and the settings.
func onewayOf(target string, cfg transport.Config) (brokered.Addr, settings, error) {
	e, err := brokered.Open(Transport{}, target, cfg, false)
	return e.Addr, settingsOf(e.Options), err
}

func groupQueue(a brokered.Addr, group string) string { return a.Name + "." + group }

// channel opens a connection and a channel on it.
func channel(a brokered.Addr, cfg transport.Config, role string) (*amqp.Connection, *amqp.Channel, error) {
	conn, err := dial(a, cfg, role)
	if err != nil {
		return nil, nil, err
	}
	ch, err := conn.Channel()
	if err != nil {
		conn.Close()
		return nil, nil, brokered.Unavailable("amqp: opening a channel: %w", err)
	}
	return conn, ch, nil
}

// admin runs f on a channel of its own to the target's broker.
func admin(target string, cfg transport.Config, f func(a brokered.Addr, s settings, ch *amqp.Channel) error) error {
	a, s, err := onewayOf(target, cfg)
	if err != nil {
		return err
	}
	conn, ch, err := channel(a, cfg, "admin")
	if err != nil {
		return err
	}
	defer conn.Close()
	return f(a, s, ch)
}

// Prepare declares the exchange and a queue a group, bound to it.
func (Transport) Prepare(_ context.Context, target string, cfg transport.Config, plan transport.Plan) error {
	return admin(target, cfg, func(a brokered.Addr, s settings, ch *amqp.Channel) error {
		durable := s.persistent || s.quorum
		if err := ch.ExchangeDeclare(a.Name, amqp.ExchangeFanout, durable, false, false, false, nil); err != nil {
			return fmt.Errorf("amqp: declaring exchange %s: %w", a.Name, err)
		}
		args := amqp.Table{amqp.QueueTypeArg: amqp.QueueTypeClassic}
		if s.quorum {
			args[amqp.QueueTypeArg] = amqp.QueueTypeQuorum
		}
		for _, g := range plan.Groups {
			q := groupQueue(a, g)
			if _, err := ch.QueueDeclare(q, durable, false, false, false, args); err != nil {
				return fmt.Errorf("amqp: declaring queue %s: %w", q, err)
			}
			if err := ch.QueueBind(q, "", a.Name, false, nil); err != nil {
				return fmt.Errorf("amqp: binding queue %s: %w", q, err)
			}
		}
		return nil
	})
}

// Remove deletes the groups' queues and the exchange.
func (Transport) Remove(_ context.Context, target string, cfg transport.Config, plan transport.Plan) error {
	return admin(target, cfg, func(a brokered.Addr, _ settings, ch *amqp.Channel) error {
		for _, g := range plan.Groups {
			if _, err := ch.QueueDelete(groupQueue(a, g), false, false, false); err != nil {
				return err
			}
		}
		return ch.ExchangeDelete(a.Name, false, false)
	})
}

type publisher struct {
	conn     *amqp.Connection
	ch       *amqp.Channel
	exchange string
	s        settings
}

// Publisher publishes on a channel of its own, in confirm mode when the
// settings ask.
func (Transport) Publisher(_ context.Context, target string, cfg transport.Config) (transport.Publisher, error) {
	a, s, err := onewayOf(target, cfg)
	if err != nil {
		return nil, err
	}
	conn, ch, err := channel(a, cfg, "publisher")
	if err != nil {
		return nil, err
	}
	if s.confirm {
		if err := ch.Confirm(false); err != nil {
			conn.Close()
			return nil, fmt.Errorf("amqp: confirm mode: %w", err)
		}
	}
	return &publisher{conn: conn, ch: ch, exchange: a.Name, s: s}, nil
}

func (p *publisher) Publish(ctx context.Context, _ string, body []byte) error {
	msg := amqp.Publishing{Body: body, DeliveryMode: p.s.deliveryMode()}
	if err := publishTo(ctx, p.ch, p.s.confirm, p.exchange, "", false, msg); err != nil {
		return brokered.Unavailable("amqp: publishing to %s: %w", p.exchange, err)
	}
	return nil
}

func (p *publisher) Close() error { return p.conn.Close() }

type subscriber struct {
	conn *amqp.Connection
	ch   *amqp.Channel
	tag  string
	done sync.WaitGroup
}

// Subscribe consumes the group's queue with the settings' prefetch,
// acknowledging each message it takes when ack is manual.
func (Transport) Subscribe(_ context.Context, target, group string, cfg transport.Config, deliver func([]byte) bool) (transport.Subscriber, error) {
	a, s, err := onewayOf(target, cfg)
	if err != nil {
		return nil, err
	}
	conn, ch, err := channel(a, cfg, "consumer")
	if err != nil {
		return nil, err
	}
	sub := &subscriber{conn: conn, ch: ch, tag: "hopbench-" + brokered.RandomID()}
	deliveries, err := sub.consume(groupQueue(a, group), s)
	if err != nil {
		conn.Close()
		return nil, err
	}
	sub.done.Add(1)
	go func() {
		defer sub.done.Done()
		for d := range deliveries {
			if deliver(d.Body) && s.manualAck {
				d.Ack(false)
			}
		}
	}()
	return sub, nil
}

func (s *subscriber) consume(queue string, st settings) (<-chan amqp.Delivery, error) {
	if err := s.ch.Qos(st.prefetch, 0, false); err != nil {
		return nil, fmt.Errorf("amqp: prefetch: %w", err)
	}
	d, err := s.ch.Consume(queue, s.tag, !st.manualAck, false, false, false, nil)
	if err != nil {
		return nil, fmt.Errorf("amqp: consuming %s: %w", queue, err)
	}
	return d, nil
}

// Close cancels the consumer; what it was sent and did not take goes
// back to the queue with the connection.
func (s *subscriber) Close() error {
	s.ch.Cancel(s.tag, false)
	err := s.conn.Close()
	s.done.Wait()
	return err
}

// Err: amqp091 does not reconnect.
func (s *subscriber) Err() error {
	if s.conn.IsClosed() || s.ch.IsClosed() {
		return brokered.Unavailable("amqp: the consumer's connection or channel is closed")
	}
	return nil
}

// Abort closes the connection at once: the broker requeues what the
// consumer had not acknowledged.
func (s *subscriber) Abort() {
	s.conn.Close()
	s.done.Wait()
}

var _ transport.Messenger = Transport{}
