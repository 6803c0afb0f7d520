// Package nats is the nats stack: request/reply on a subject with
// github.com/nats-io/nats.go. A service subscribes in a queue group named
// after its subject, so replicas share the requests; a caller's request
// carries a reply inbox, which nats.go multiplexes over one subscription.
//
// Addresses are nats://127.0.0.1:4222/SUBJECT.
package nats

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/nats-io/nats.go"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

func init() { transport.Register(Transport{}) }

// Transport is the nats stack.
type Transport struct{}

func (Transport) Name() string { return "nats" }

// Caps: a broker stack's, through NATS.
func (t Transport) Caps() transport.Caps {
	return brokered.Caps("nats", "nats", t.options(), t.traits())
}

// traits are what nats offers beyond its figures.
func (Transport) traits() transport.Traits {
	return transport.Traits{
		Decoupled: true,
		Browser:   "browsers reach NATS only over its WebSocket listener (not enabled here)",
		Notes:     []string{"a small broker (one Go binary, tens of MiB)", "core NATS keeps no messages: a request with no service listening fails at once (JetStream adds persistence)"},
	}
}

// dialer adapts a Config's dialer to nats.CustomDialer.
type dialer struct{ cfg transport.Config }

func (d dialer) Dial(network, addr string) (net.Conn, error) {
	return brokered.NetDial(d.cfg)(network, addr)
}

func connect(a brokered.Addr, cfg transport.Config, role string) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name("hopbench " + role + " " + a.Name),
		nats.SetCustomDialer(dialer{cfg}),
		// A lost broker fails calls at once rather than buffering them
		// through reconnect attempts the run does not wait for.
		nats.NoReconnect(),
	}
	if cfg.ClientTLS != nil {
		// nats.go upgrades the dialled connection after the server's INFO.
		opts = append(opts, nats.Secure(cfg.ClientTLS.Clone()))
	}
	nc, err := nats.Connect("nats://"+a.Host, opts...)
	if err != nil {
		return nil, brokered.Unavailable("nats: connecting to NATS at %s: %w (is it running? hopbench brokers up nats)", a.Host, err)
	}
	return nc, nil
}

func toHeader(m brokered.Meta) nats.Header {
	h := make(nats.Header, len(m))
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

func fromHeader(h nats.Header) brokered.Meta {
	m := make(brokered.Meta, len(h))
	for k := range h {
		m[k] = h.Get(k)
	}
	return m
}

type server struct {
	addr    brokered.Addr
	nc      *nats.Conn
	sub     *nats.Subscription
	service *brokered.Service
}

func (Transport) options() []transport.Option {
	return []transport.Option{brokered.ServeOption, JetStreamOption}
}

// Listen subscribes to the subject in a queue group of the same name.
func (t Transport) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	e, err := brokered.Open(t, addr, cfg, true)
	if err != nil {
		return nil, err
	}
	a := e.Addr
	nc, err := connect(a, cfg, "service")
	if err != nil {
		return nil, err
	}
	srv := &server{addr: a, nc: nc, service: brokered.NewService(e, h)}
	srv.sub, err = nc.QueueSubscribe(a.Name, a.Name, func(m *nats.Msg) {
		// nats.go delivers a subscription's messages one at a time.
		srv.service.Take(fromHeader(m.Header), m.Data, func(_ context.Context, meta brokered.Meta, reply []byte) {
			m.RespondMsg(&nats.Msg{Header: toHeader(meta), Data: reply})
		}, nil)
	})
	if err == nil {
		err = nc.Flush() // the subscription is registered before we say we serve
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("nats: subscribing to %s: %w", a.Name, err)
	}
	return srv, nil
}

func (s *server) Addr() string { return s.addr.String() }

// Health: the connection never reconnects (see connect), so once it is
// lost the subject is served no more.
func (s *server) Health() error {
	if s.nc.IsConnected() {
		return nil
	}
	why := "closed"
	if err := s.nc.LastError(); err != nil {
		why = err.Error()
	}
	return brokered.Unavailable("nats: the connection to NATS at %s is lost (%s): subject %s is no longer served", s.addr.Host, why, s.addr.Name)
}

func (s *server) Close() error {
	s.sub.Unsubscribe()
	s.service.Close()
	s.nc.Close()
	return nil
}

type client struct {
	addr     brokered.Addr
	nc       *nats.Conn
	maxBytes int
}

// Dial connects; each call is a request with its own reply inbox.
func (t Transport) Dial(ctx context.Context, target string, cfg transport.Config) (transport.Client, error) {
	e, err := brokered.Open(t, target, cfg, false)
	if err != nil {
		return nil, err
	}
	nc, err := connect(e.Addr, cfg, "client")
	if err != nil {
		return nil, err
	}
	return &client{addr: e.Addr, nc: nc, maxBytes: e.MaxBytes}, nil
}

func (c *client) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	if err := transport.CheckBody("request body", req.Body, c.maxBytes); err != nil {
		return nil, err
	}
	msg := &nats.Msg{Subject: c.addr.Name, Header: toHeader(brokered.RequestMeta(ctx, req)), Data: req.Body}
	reply, err := c.nc.RequestMsgWithContext(ctx, msg)
	switch {
	case err == nil:
		return brokered.Result(fromHeader(reply.Header), reply.Data, c.maxBytes)
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout):
		return nil, &transport.Error{Code: transport.CodeDeadline, Msg: "no reply before the call's deadline", Err: err}
	case errors.Is(err, nats.ErrNoResponders):
		return nil, brokered.Unavailable("nats: no service subscribes to %s", c.addr.Name)
	case errors.Is(err, nats.ErrMaxPayload):
		return nil, &transport.Error{Code: transport.CodeTooLarge, Msg: fmt.Sprintf("request of %d bytes exceeds the broker's max_payload of %d bytes", len(req.Body), c.nc.MaxPayload()), Err: err}
	}
	return nil, brokered.Unavailable("nats: %w", err)
}

func (c *client) Close() error {
	c.nc.Close()
	return nil
}
