package mqtt

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/eclipse/paho.golang/packets"
	"github.com/eclipse/paho.golang/paho"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// Limits of a connection.
const (
	// receiveMaximum bounds the QoS 1 and 2 messages the broker sends a
	// client before the client acknowledges them; paho's default, 65535,
	// would also size its queue of received messages.
	receiveMaximum = 1024
	// envelope is room for a packet's topic and properties beside a body.
	envelope = 1 << 20
	// mqttMaxPacket is MQTT's own limit: a remaining length of at most
	// 268 435 455 bytes, and its fixed header.
	mqttMaxPacket = 268_435_455 + 5
	// connectTimeout bounds dialling, the TLS handshake and CONNACK.
	connectTimeout = 10 * time.Second
	// keepAlive is the keep alive the client asks for, in seconds.
	keepAlive = 30
)

// conn is one MQTT 5 connection to the broker, with paho's client: one
// connection, never re-opened, so that a lost broker fails calls at once
// and a server says it no longer serves (autopaho would reconnect behind
// the stack's back).
type conn struct {
	cl        *paho.Client
	host      string
	maxPacket int  // the largest packet the broker takes
	maxQoS    byte // the highest QoS the broker takes

	once   sync.Once
	lost   chan struct{} // closed when the connection is lost or closed
	reason error
	onLost func(error)
	// ctx ends with the connection: paho forgets the publishes waiting
	// for their acknowledgement when its connection is lost, without a
	// word to them.
	ctx    context.Context
	cancel context.CancelFunc
}

// dial connects to the broker at a over cfg's dialer (and TLS), as role,
// handing each message it is delivered to deliver, in paho's delivering
// goroutine; onLost hears once that the connection is gone.
func dial(ctx context.Context, a brokered.Addr, cfg transport.Config, role string, deliver func(*paho.Publish), onLost func(error)) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	nc, err := brokered.TLSDial(cfg)(ctx, "tcp", a.Host)
	if err != nil {
		return nil, brokered.Unavailable("mqtt: connecting to Mosquitto at %s: %w (is it running? hopbench brokers up mosquitto)", a.Host, err)
	}
	c := &conn{host: a.Host, lost: make(chan struct{}), onLost: onLost}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.cl = paho.NewClient(paho.ClientConfig{
		// paho writes a packet in several writes, from any goroutine that
		// publishes: packetConn's lock keeps packets whole, and writes
		// each at once.
		Conn: newPacketConn(nc),
		OnPublishReceived: []func(paho.PublishReceived) (bool, error){func(r paho.PublishReceived) (bool, error) {
			deliver(r.Packet)
			return true, nil
		}},
		OnClientError: c.fail,
		OnServerDisconnect: func(d *paho.Disconnect) {
			c.fail(fmt.Errorf("the broker disconnected it (reason code %#x)", d.ReasonCode))
		},
	})
	ours, recv := uint32(min(max(cfg.MaxBytesOrDefault(), codec.DefaultMaxBytes)+envelope, mqttMaxPacket)), uint16(receiveMaximum)
	ack, err := c.cl.Connect(ctx, &paho.Connect{
		ClientID:   "hopbench-" + role + "-" + brokered.RandomID(),
		CleanStart: true,
		KeepAlive:  keepAlive,
		Properties: &paho.ConnectProperties{ReceiveMaximum: &recv, MaximumPacketSize: &ours},
	})
	if err != nil {
		nc.Close()
		c.cancel()
		return nil, brokered.Unavailable("mqtt: connecting to Mosquitto at %s: %w", a.Host, err)
	}
	c.maxPacket, c.maxQoS = mqttMaxPacket, 2
	if p := ack.Properties; p != nil && p.MaximumPacketSize != nil {
		c.maxPacket = int(*p.MaximumPacketSize)
	}
	if p := ack.Properties; p != nil && p.MaximumQoS != nil {
		c.maxQoS = *p.MaximumQoS
	}
	return c, nil
}

// fail records why the connection is gone, once.
func (c *conn) fail(err error) {
	c.once.Do(func() {
		c.reason = err
		close(c.lost)
		c.cancel()
		if c.onLost != nil {
			c.onLost(err)
		}
	})
}

// health is nil while the connection lasts, else why it is gone.
func (c *conn) health() error {
	select {
	case <-c.lost:
		return fmt.Errorf("the connection to Mosquitto at %s is lost (%v)", c.host, c.reason)
	default:
		return nil
	}
}

// checkQoS refuses a QoS the broker does not take.
func (c *conn) checkQoS(qos byte) error {
	if qos > c.maxQoS {
		return fmt.Errorf("mqtt: option qos=%d: the broker at %s takes QoS %d at most", qos, c.host, c.maxQoS)
	}
	return nil
}

// publish sends p and, at QoS 1 and 2, waits for the broker's
// acknowledgement, until ctx or the connection ends.
func (c *conn) publish(ctx context.Context, p *paho.Publish) (*paho.PublishResponse, error) {
	if err := c.fits(p); err != nil {
		return nil, err
	}
	if p.QoS == 0 {
		return c.cl.Publish(ctx, p)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.ctx, cancel)()
	return c.cl.Publish(ctx, p)
}

// send sends p without waiting for its acknowledgement (paho completes
// the exchange), for replies: a service's delivering goroutine never
// waits on the broker, and a reply lost leaves its caller to its deadline.
func (c *conn) send(ctx context.Context, p *paho.Publish) error {
	if err := c.fits(p); err != nil {
		return err
	}
	_, err := c.cl.PublishWithOptions(ctx, p, paho.PublishOptions{Method: paho.PublishMethod_AsyncSend})
	return err
}

// fits refuses p if it does not fit the broker's packets, since the
// broker would drop the connection.
func (c *conn) fits(p *paho.Publish) error {
	if size := packetSize(p, c.maxPacket); size > c.maxPacket {
		return &transport.Error{Code: transport.CodeTooLarge, Msg: fmt.Sprintf(
			"a message to %s of %d bytes (a body of %d) exceeds the broker's maximum packet size of %d bytes", p.Topic, size, len(p.Payload), c.maxPacket)}
	}
	return nil
}

// subscribe subscribes to topic at qos.
func (c *conn) subscribe(ctx context.Context, topic string, qos byte) error {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	if _, err := c.cl.Subscribe(ctx, &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: topic, QoS: qos}}}); err != nil {
		return brokered.Unavailable("mqtt: subscribing to %s at %s: %w", topic, c.host, err)
	}
	return nil
}

// close disconnects and waits for paho's goroutines to end.
func (c *conn) close() {
	c.fail(fmt.Errorf("closed"))
	c.cl.Disconnect(&paho.Disconnect{ReasonCode: 0})
	<-c.cl.Done()
}

// packetSize is the size of p as a PUBLISH packet (its fixed header,
// topic, packet id, properties and payload), or a bound above it when
// that is within limit: the exact size packs the properties, which most
// messages need not pay for.
func packetSize(p *paho.Publish, limit int) int {
	if bound := packetBound(p); bound <= limit {
		return bound
	}
	n := 2 + len(p.Topic) + len(p.Payload)
	if p.QoS > 0 {
		n += 2
	}
	props := len(p.Packet().Properties.Pack(packets.PUBLISH))
	n += vbiLen(props) + props
	return 1 + vbiLen(n) + n
}

// packetBound is a bound above p's size as a PUBLISH packet: every
// variable byte integer at its longest, and room for the properties
// hopbench does not set.
func packetBound(p *paho.Publish) int {
	n := 1 + 4 + 2 + len(p.Topic) + 2 + 4 + len(p.Payload) + 16
	if pp := p.Properties; pp != nil {
		n += 3 + len(pp.CorrelationData) + 3 + len(pp.ContentType) + 3 + len(pp.ResponseTopic)
		for _, u := range pp.User {
			n += 5 + len(u.Key) + len(u.Value)
		}
	}
	return n
}

// vbiLen is the length of n as an MQTT variable byte integer.
func vbiLen(n int) int {
	l := 1
	for ; n >= 128; n >>= 7 {
		l++
	}
	return l
}
