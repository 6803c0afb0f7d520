package brokered

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

// stack is a broker stack's registration without a broker: enough for
// Open, which reads only its name and Caps.
type stack struct{}

func (stack) Name() string { return "stack" }
func (stack) Caps() transport.Caps {
	return Caps("rabbitmq", "amqp", []transport.Option{ServeOption}, transport.Traits{})
}
func (stack) Listen(context.Context, string, transport.Config, transport.Handler) (transport.Server, error) {
	return nil, errors.ErrUnsupported
}
func (stack) Dial(context.Context, string, transport.Config) (transport.Client, error) {
	return nil, errors.ErrUnsupported
}

// Open refuses what no broker stack has, resolves the stack's options
// and reads the address in the scheme its Caps name: a server's may leave
// out the name, a client's may not.
func TestOpenReadsTheSettingsEveryBrokerStackShares(t *testing.T) {
	e, err := Open(stack{}, "127.0.0.1:5672/q", transport.Config{MaxBytes: 100}, false)
	if err != nil {
		t.Fatal(err)
	}
	if e.Addr.String() != "amqp://127.0.0.1:5672/q" || e.Options["serve"] != ServeConcurrent || e.MaxBytes != 100 {
		t.Errorf("endpoint %+v: want amqp://127.0.0.1:5672/q, serve=concurrent by default, max bytes 100", e)
	}
	if e, err := Open(stack{}, "amqp://127.0.0.1:5672", transport.Config{}, true); err != nil || !strings.HasPrefix(e.Addr.Name, "hopbench.") {
		t.Errorf("a server with no name: %+v, %v; want a unique one", e, err)
	}
	for _, c := range []struct {
		addr string
		cfg  transport.Config
		want string
	}{
		{"127.0.0.1:5672/q", transport.Config{HTTP2: true}, "HTTP/2"},
		{"127.0.0.1:5672/q", transport.Config{Options: map[string]string{"acks": "all"}}, `unknown option "acks"`},
		{"127.0.0.1:5672/q", transport.Config{Options: map[string]string{"serve": "now"}}, "serve"},
		{"127.0.0.1:5672", transport.Config{}, "names no queue"},
		{"nats://127.0.0.1:4222/q", transport.Config{}, "amqp:// scheme"},
	} {
		if _, err := Open(stack{}, c.addr, c.cfg, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%q, %+v): %v, want an error saying %q", c.addr, c.cfg, err, c.want)
		}
	}
}

// A request whose send fails is forgotten and fails with send's error, or
// its context's once that has ended; one sent waits for its reply.
func TestACallThatCannotBeSentIsForgotten(t *testing.T) {
	json, _ := codec.Lookup("json")
	none, _ := codec.LookupCompression("none")
	req := &transport.Request{Op: transport.OpEcho, Model: "text", Body: []byte(`{}`), Codec: json, Compression: none}
	p := NewPending()
	refused := Unavailable("refused")
	var sent string
	_, err := p.Call(context.Background(), req, 1<<20, func(id string, m Meta) error {
		sent = id
		if m[HeaderOp] != string(transport.OpEcho) {
			t.Errorf("metadata %v: want the request's", m)
		}
		return refused
	})
	if err != refused || p.Deliver(sent, Reply{}) {
		t.Errorf("a refused send: %v, and its call still waits: %v; want the refusal, forgotten", err, p.Deliver(sent, Reply{}))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Call(ctx, req, 1<<20, func(string, Meta) error { return refused }); !errors.Is(err, context.Canceled) {
		t.Errorf("a refused send once its context ended: %v, want the context's", err)
	}
	if _, err := p.Call(context.Background(), req, 1, nil); transport.CodeOf(err) != transport.CodeTooLarge {
		t.Errorf("a body over the bound: %v, want too large", err)
	}
	body, err := p.Call(context.Background(), req, 1<<20, func(id string, m Meta) error {
		go p.Deliver(id, Reply{Meta: Meta{HeaderContentType: m[HeaderContentType]}, Body: []byte("reply")})
		return nil
	})
	if err != nil || string(body) != "reply" {
		t.Errorf("a sent call: %q, %v; want its reply", body, err)
	}
}

// A message with nobody to answer is not served, only done; one with a
// caller is served, then done.
func TestAServiceServesThenIsDone(t *testing.T) {
	e, err := Open(stack{}, "127.0.0.1:5672/q", transport.Config{Options: map[string]string{"serve": ServeSerial}}, true)
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	s := NewService(e, transport.Handler{Bytes: func(context.Context, *transport.Request) ([]byte, error) {
		served = append(served, "served")
		return nil, nil
	}})
	defer s.Close()
	m := Meta{HeaderOp: string(transport.OpEcho), HeaderContentType: "application/json"}
	done := func(context.Context) { served = append(served, "done") }
	s.Take(m, nil, nil, done)
	s.Take(m, nil, func(context.Context, Meta, []byte) { served = append(served, "replied") }, done)
	if got := strings.Join(served, " "); got != "done served replied done" {
		t.Errorf("serially: %s; want done, then served replied done", got)
	}
}
