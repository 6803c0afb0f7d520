// Package mqtt is the mqtt stack: MQTT 5 request/response through
// Mosquitto with github.com/eclipse/paho.golang's paho client. A service
// subscribes to its topic in a shared subscription ($share/NAME/NAME), so
// replicas share the requests; a caller publishes to the topic with a
// response topic of its own, subscribed once when it connects, and the
// call's correlation id as correlation data, and the service publishes the
// reply there with the same correlation data. hopbench's metadata travels
// as user properties, the codec's media type as the content type.
//
// Addresses are mqtt://127.0.0.1:1883/TOPIC.
package mqtt

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/eclipse/paho.golang/paho"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

func init() { transport.Register(Transport{}) }

// Transport is the mqtt stack.
type Transport struct{}

func (Transport) Name() string { return "mqtt" }

// Caps: a broker stack's, through Mosquitto.
func (t Transport) Caps() transport.Caps {
	return brokered.Caps("mosquitto", "mqtt", t.options(), t.traits())
}

// traits are what mqtt offers beyond its figures.
func (Transport) traits() transport.Traits {
	return transport.Traits{
		Decoupled: true,
		Durable:   "QoS 1 or 2 in a persistent session (clean start off, a session expiry): the broker queues a client's messages while it is away, on disk with persistence; hopbench's clients start clean sessions",
		Browser:   "browsers speak MQTT over WebSockets only (a Mosquitto websockets listener, not enabled here)",
		Notes:     []string{"a small broker (Mosquitto: one C process of a few MiB, whose one thread serves every client)", "made for devices: small headers, a QoS per message, retained messages and last wills", "request/response is MQTT 5's (response topic, correlation data); MQTT 3.1.1 has none"},
	}
}

func (Transport) options() []transport.Option {
	return []transport.Option{
		{Name: "qos", Default: "1", Help: "MQTT quality of service of requests, replies and subscriptions: 0 (at most once), 1 (at least once: a PUBACK for each message) or 2 (exactly once: PUBREC, PUBREL, PUBCOMP)",
			Check: transport.OneOf("0", "1", "2")},
		brokered.ServeOption,
	}
}

// settings are the endpoint, with its topic checked, and the options
// read.
type settings struct {
	brokered.Endpoint
	qos byte
}

func (t Transport) settings(addr string, cfg transport.Config, server bool) (settings, error) {
	e, err := brokered.Open(t, addr, cfg, server)
	if err != nil {
		return settings{}, err
	}
	// A topic name takes no wildcards, and $ starts the broker's own.
	if name := e.Addr.Name; strings.ContainsAny(name, "+#") || strings.HasPrefix(name, "$") {
		return settings{}, fmt.Errorf("address %q: the topic %q may not contain '+' or '#', nor start with '$'", addr, name)
	}
	qos, _ := strconv.Atoi(e.Options["qos"])
	return settings{Endpoint: e, qos: byte(qos)}, nil
}

// properties carries m as a message's properties: the content type in its
// own, the rest as user properties.
func properties(m brokered.Meta) *paho.PublishProperties {
	p := &paho.PublishProperties{ContentType: m[brokered.HeaderContentType], User: make(paho.UserProperties, 0, len(m))}
	for k, v := range m {
		if k != brokered.HeaderContentType {
			p.User = append(p.User, paho.UserProperty{Key: k, Value: v})
		}
	}
	return p
}

// meta reads a message's metadata back from its properties.
func meta(p *paho.PublishProperties) brokered.Meta {
	m := make(brokered.Meta, len(p.User)+1)
	for _, u := range p.User {
		m[u.Key] = u.Value
	}
	m[brokered.HeaderContentType] = p.ContentType
	return m
}

// server serves the requests of its shared subscription.
type server struct {
	addr    brokered.Addr
	conn    *conn
	qos     byte
	service *brokered.Service
}

// Listen subscribes to the topic in a shared subscription named after it.
func (t Transport) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	s, err := t.settings(addr, cfg, true)
	if err != nil {
		return nil, err
	}
	name := s.Addr.Name
	srv := &server{addr: s.Addr, qos: s.qos, service: brokered.NewService(s.Endpoint, h)}
	// paho delivers a connection's messages one at a time.
	deliver := func(p *paho.Publish) {
		if p.Topic != name || p.Properties == nil || p.Properties.ResponseTopic == "" {
			return // no caller to answer
		}
		srv.service.Take(meta(p.Properties), p.Payload, func(ctx context.Context, m brokered.Meta, body []byte) {
			srv.reply(ctx, p.Properties, m, body)
		}, nil)
	}
	if srv.conn, err = dial(ctx, s.Addr, cfg, "service", deliver, nil); err != nil {
		srv.service.Close()
		return nil, err
	}
	if err = srv.conn.checkQoS(s.qos); err == nil {
		err = srv.conn.subscribe(ctx, "$share/"+name+"/"+name, s.qos)
	}
	if err != nil {
		srv.Close()
		return nil, err
	}
	return srv, nil
}

// reply publishes a reply to the caller's response topic. One that does
// not fit the broker's packets goes as the error saying so; one that
// fails to go (the connection lost, or closing) leaves the caller to its
// deadline.
func (srv *server) reply(ctx context.Context, req *paho.PublishProperties, m brokered.Meta, body []byte) {
	p := &paho.Publish{Topic: req.ResponseTopic, QoS: srv.qos, Payload: body, Properties: properties(m)}
	p.Properties.CorrelationData = req.CorrelationData
	err := srv.conn.send(ctx, p)
	if transport.CodeOf(err) == transport.CodeTooLarge {
		p.Payload, p.Properties = nil, properties(brokered.Meta{brokered.HeaderError: transport.CodeTooLarge.String(), brokered.HeaderErrorMsg: "reply: " + err.Error()})
		p.Properties.CorrelationData = req.CorrelationData
		srv.conn.send(ctx, p)
	}
}

func (srv *server) Addr() string { return srv.addr.String() }

// Health: the connection is never re-opened, so once it is lost the topic
// is served no more.
func (srv *server) Health() error {
	if err := srv.conn.health(); err != nil {
		return brokered.Unavailable("mqtt: %v: topic %s is no longer served", err, srv.addr.Name)
	}
	return nil
}

// Close closes the connection, which ends the deliveries (paho's
// delivering goroutine is done with once it returns), then ends the calls
// in flight and waits for them.
func (srv *server) Close() error {
	srv.conn.close()
	srv.service.Close()
	return nil
}
