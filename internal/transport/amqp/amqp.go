// Package amqp is the amqp stack: RPC over RabbitMQ with
// github.com/rabbitmq/amqp091-go. A service consumes its request queue; a
// caller publishes to it with reply-to and a correlation id, and the reply
// comes back on RabbitMQ's direct reply-to pseudo-queue or, with option
// reply=queue, on an exclusive queue of the caller's own. Bodies are in any
// codec, named by the message's content type and encoding, as for rest.
//
// Addresses are amqp://127.0.0.1:5672/QUEUE.
package amqp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

func init() { transport.Register(Transport{}) }

// Transport is the amqp stack.
type Transport struct{}

func (Transport) Name() string { return "amqp" }

// Caps: a broker stack's, through RabbitMQ.
func (t Transport) Caps() transport.Caps {
	return brokered.Caps("rabbitmq", "amqp", t.options(), t.traits())
}

// traits are what amqp offers beyond its figures.
func (Transport) traits() transport.Traits {
	return transport.Traits{
		Decoupled: true,
		Durable:   "option persistent=true (durable queues, persistent messages) and confirm=true (publisher confirms)",
		Browser:   "browsers do not speak AMQP: an HTTP gateway (or RabbitMQ's Web-STOMP plugin) goes in front",
		Notes:     []string{"a broker to run and monitor: one more component between services", "routing by exchanges and bindings; messages wait in queues while a service is down"},
	}
}

// directReplyTo is RabbitMQ's direct reply-to pseudo-queue.
const directReplyTo = "amq.rabbitmq.reply-to"

func (Transport) options() []transport.Option {
	return []transport.Option{
		{Name: "reply", Default: "direct", Help: "where replies come back: direct (RabbitMQ's direct reply-to) or queue (an exclusive queue per client)",
			Check: transport.OneOf("direct", "queue")},
		{Name: "prefetch", Default: "128", Help: "unacknowledged requests a service holds at once (basic.qos)", Check: transport.PositiveInt},
		{Name: "persistent", Default: "false", Help: "durable request queues and persistent messages (written to disk)", Check: transport.Bool},
		{Name: "confirm", Default: "false", Help: "publisher confirms: a publish waits for the broker's ack", Check: transport.Bool},
		{Name: "queue", Default: "classic", Help: "one-way messages: the groups' queue type, classic or quorum (replicated, always durable)", Check: transport.OneOf("classic", "quorum")},
		{Name: "ack", Default: "manual", Help: "one-way messages: consumers acknowledge each message after taking it (manual) or the broker counts it delivered as it sends it (auto)", Check: transport.OneOf("manual", "auto")},
		brokered.ServeOption,
	}
}

// settings are the options, read.
type settings struct {
	directReply bool
	prefetch    int
	persistent  bool
	confirm     bool
	quorum      bool
	manualAck   bool
}

// settingsOf reads the options, resolved (brokered.Endpoint's).
func settingsOf(opts map[string]string) settings {
	s := settings{directReply: opts["reply"] == "direct"}
	s.prefetch, _ = strconv.Atoi(opts["prefetch"])
	s.persistent, _ = strconv.ParseBool(opts["persistent"])
	s.confirm, _ = strconv.ParseBool(opts["confirm"])
	s.quorum, s.manualAck = opts["queue"] == "quorum", opts["ack"] == "manual"
	return s
}

func (s settings) deliveryMode() uint8 {
	if s.persistent {
		return amqp.Persistent
	}
	return amqp.Transient
}

// dial connects to the broker as guest (RabbitMQ allows it on loopback).
func dial(a brokered.Addr, cfg transport.Config, role string) (*amqp.Connection, error) {
	scheme := "amqp"
	if cfg.ClientTLS != nil {
		scheme = "amqps" // amqp091 runs TLS over the connection Dial returns
	}
	conn, err := amqp.DialConfig(scheme+"://guest:guest@"+a.Host+"/", amqp.Config{
		Dial:            brokered.NetDial(cfg),
		TLSClientConfig: cfg.ClientTLS,
		Properties:      amqp.Table{"connection_name": "hopbench " + role + " " + a.Name},
	})
	if err != nil {
		return nil, brokered.Unavailable("amqp: connecting to RabbitMQ at %s: %w (is it running? hopbench brokers up rabbitmq)", a.Host, err)
	}
	return conn, nil
}

// publish sends msg to the default exchange, waiting for the broker's
// confirm when on.
func publish(ctx context.Context, ch *amqp.Channel, confirm bool, key string, mandatory bool, msg amqp.Publishing) error {
	return publishTo(ctx, ch, confirm, "", key, mandatory, msg)
}

// publishTo sends msg to exchange, waiting for the broker's confirm when
// on.
func publishTo(ctx context.Context, ch *amqp.Channel, confirm bool, exchange, key string, mandatory bool, msg amqp.Publishing) error {
	if !confirm {
		return ch.PublishWithContext(ctx, exchange, key, mandatory, false, msg)
	}
	dc, err := ch.PublishWithDeferredConfirmWithContext(ctx, exchange, key, mandatory, false, msg)
	if err != nil {
		return err
	}
	ok, err := dc.WaitContext(ctx)
	if err == nil && !ok {
		err = errors.New("the broker refused the message (nack)")
	}
	return err
}

func toTable(m brokered.Meta) amqp.Table {
	t := make(amqp.Table, len(m))
	for k, v := range m {
		if k != brokered.HeaderContentType && k != brokered.HeaderEncoding {
			t[k] = v
		}
	}
	return t
}

func fromDelivery(d *amqp.Delivery) brokered.Meta {
	m := brokered.Meta{brokered.HeaderContentType: d.ContentType, brokered.HeaderEncoding: d.ContentEncoding}
	for k, v := range d.Headers {
		if s, ok := v.(string); ok {
			m[k] = s
		}
	}
	return m
}

func publishing(m brokered.Meta, body []byte, s settings) amqp.Publishing {
	return amqp.Publishing{
		Headers:         toTable(m),
		ContentType:     m[brokered.HeaderContentType],
		ContentEncoding: m[brokered.HeaderEncoding],
		DeliveryMode:    s.deliveryMode(),
		Body:            body,
	}
}

// server consumes a request queue and publishes each reply to its caller.
type server struct {
	addr    brokered.Addr
	conn    *amqp.Connection
	service *brokered.Service
	done    chan struct{}
	once    sync.Once
}

// Listen declares the service's queue (auto-deleted when its last consumer
// goes) and consumes it; several servers on one queue share its requests.
func (t Transport) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	e, err := brokered.Open(t, addr, cfg, true)
	if err != nil {
		return nil, err
	}
	s := settingsOf(e.Options)
	conn, err := dial(e.Addr, cfg, "service")
	if err != nil {
		return nil, err
	}
	srv := &server{addr: e.Addr, conn: conn, service: brokered.NewService(e, h), done: make(chan struct{})}
	deliveries, pub, err := srv.open(s)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("amqp: queue %s: %w", e.Addr.Name, err)
	}
	go func() {
		defer close(srv.done)
		for d := range deliveries {
			srv.service.Take(fromDelivery(&d), d.Body, func(ctx context.Context, meta brokered.Meta, reply []byte) {
				msg := publishing(meta, reply, s)
				msg.CorrelationId = d.CorrelationId
				// A failed reply (the caller's queue is gone, or we are
				// closing) leaves the caller to its deadline.
				publish(ctx, pub, s.confirm, d.ReplyTo, false, msg)
			}, func(context.Context) { d.Ack(false) })
		}
	}()
	return srv, nil
}

func (srv *server) open(s settings) (<-chan amqp.Delivery, *amqp.Channel, error) {
	ch, err := srv.conn.Channel()
	if err != nil {
		return nil, nil, err
	}
	if err := ch.Qos(s.prefetch, 0, false); err != nil {
		return nil, nil, err
	}
	if _, err := ch.QueueDeclare(srv.addr.Name, s.persistent, true, false, false, nil); err != nil {
		return nil, nil, err
	}
	deliveries, err := ch.Consume(srv.addr.Name, "", false, false, false, false, nil)
	if err != nil {
		return nil, nil, err
	}
	pub, err := srv.conn.Channel()
	if err != nil {
		return nil, nil, err
	}
	if s.confirm {
		if err := pub.Confirm(false); err != nil {
			return nil, nil, err
		}
	}
	return deliveries, pub, nil
}

func (srv *server) Addr() string { return srv.addr.String() }

// Health: the server has one connection and consumer, and does not
// reconnect; once its connection is closed it serves nothing.
func (srv *server) Health() error {
	select {
	case <-srv.done:
		return brokered.Unavailable("amqp: the connection to RabbitMQ at %s is closed: queue %s is no longer consumed", srv.addr.Host, srv.addr.Name)
	default:
	}
	if srv.conn.IsClosed() {
		return brokered.Unavailable("amqp: the connection to RabbitMQ at %s is closed", srv.addr.Host)
	}
	return nil
}

// Close closes the connection, which ends the consumer, then ends the calls
// in flight and waits for them.
func (srv *server) Close() error {
	var err error
	srv.once.Do(func() {
		if cerr := srv.conn.Close(); cerr != nil && !errors.Is(cerr, amqp.ErrClosed) {
			err = cerr
		}
		<-srv.done
		srv.service.Close()
	})
	return err
}

// client publishes requests and receives replies on one channel.
type client struct {
	addr     brokered.Addr
	s        settings
	conn     *amqp.Connection
	ch       *amqp.Channel
	replyTo  string
	pending  *brokered.Pending
	maxBytes int
	done     chan struct{}
}

// Dial connects and starts consuming replies; calls are matched to replies
// by correlation id.
func (t Transport) Dial(ctx context.Context, target string, cfg transport.Config) (transport.Client, error) {
	e, err := brokered.Open(t, target, cfg, false)
	if err != nil {
		return nil, err
	}
	conn, err := dial(e.Addr, cfg, "client")
	if err != nil {
		return nil, err
	}
	c := &client{addr: e.Addr, s: settingsOf(e.Options), conn: conn, pending: brokered.NewPending(), maxBytes: e.MaxBytes, done: make(chan struct{})}
	replies, returns, err := c.open()
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("amqp: %w", err)
	}
	closed := conn.NotifyClose(make(chan *amqp.Error, 1))
	go c.receive(replies, returns, closed)
	return c, nil
}

// open makes the client's channel: direct reply-to requires consuming and
// publishing on the same channel.
func (c *client) open() (<-chan amqp.Delivery, <-chan amqp.Return, error) {
	ch, err := c.conn.Channel()
	if err != nil {
		return nil, nil, err
	}
	c.ch, c.replyTo = ch, directReplyTo
	if !c.s.directReply {
		q, err := ch.QueueDeclare("", false, true, true, false, nil)
		if err != nil {
			return nil, nil, err
		}
		c.replyTo = q.Name
	}
	replies, err := ch.Consume(c.replyTo, "", true, true, false, false, nil)
	if err != nil {
		return nil, nil, err
	}
	if c.s.confirm {
		if err := ch.Confirm(false); err != nil {
			return nil, nil, err
		}
	}
	return replies, ch.NotifyReturn(make(chan amqp.Return, 64)), nil
}

// receive hands replies to their callers; a returned request (no queue of
// that name) fails its call; a lost connection fails all.
func (c *client) receive(replies <-chan amqp.Delivery, returns <-chan amqp.Return, closed <-chan *amqp.Error) {
	defer close(c.done)
	for {
		select {
		case d, ok := <-replies:
			if !ok {
				replies = nil
				continue
			}
			c.pending.Deliver(d.CorrelationId, brokered.Reply{Meta: fromDelivery(&d), Body: d.Body})
		case r, ok := <-returns:
			if !ok {
				returns = nil
				continue
			}
			c.pending.Deliver(r.CorrelationId, brokered.Reply{Err: brokered.Unavailable(
				"amqp: no service is consuming queue %s (RabbitMQ returned the request: %s)", c.addr.Name, r.ReplyText)})
		case err, ok := <-closed:
			reason := "closed"
			if ok && err != nil {
				reason = err.Error()
			}
			c.pending.Fail(brokered.Unavailable("amqp: connection to RabbitMQ at %s lost: %s", c.addr.Host, reason))
			return
		}
	}
}

func (c *client) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	return c.pending.Call(ctx, req, c.maxBytes, func(id string, m brokered.Meta) error {
		msg := publishing(m, req.Body, c.s)
		msg.CorrelationId, msg.ReplyTo = id, c.replyTo
		// mandatory: a request no queue takes comes back rather than vanishing.
		if err := publish(ctx, c.ch, c.s.confirm, c.addr.Name, true, msg); err != nil {
			return brokered.Unavailable("amqp: publishing to %s: %w", c.addr.Name, err)
		}
		return nil
	})
}

func (c *client) Close() error {
	err := c.conn.Close()
	<-c.done
	if errors.Is(err, amqp.ErrClosed) {
		err = nil
	}
	return err
}
