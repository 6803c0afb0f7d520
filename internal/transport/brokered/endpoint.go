package brokered

import (
	"context"

	"github.com/hopbench/hopbench/internal/transport"
)

// Endpoint is where every broker stack's Listen, Dial and one-way calls
// begin: the settings broker stacks do not have refused, the stack's
// options resolved and its address read.
type Endpoint struct {
	Addr Addr
	// Options are every option of the stack, defaults filled in (see
	// transport.ResolveOptions).
	Options  map[string]string
	MaxBytes int // cfg's bound on a body
}

// Open reads addr and cfg for the broker stack t, whose Caps name its
// address scheme. A server's address may leave out the name (a unique one
// is made: see ParseAddr); a client's, a publisher's or a subscriber's
// may not.
func Open(t transport.Transport, addr string, cfg transport.Config, server bool) (Endpoint, error) {
	if err := Refuse(t.Name(), cfg); err != nil {
		return Endpoint{}, err
	}
	opts, err := transport.ResolveOptions(t, cfg.Options)
	if err != nil {
		return Endpoint{}, err
	}
	a, err := ParseAddr(addr, t.Caps().Scheme, server)
	if err != nil {
		return Endpoint{}, err
	}
	return Endpoint{Addr: a, Options: opts, MaxBytes: cfg.MaxBytesOrDefault()}, nil
}

// Service serves the request messages a broker delivers to a node: each
// through Serve with the node's handler, in Handlers as the endpoint's
// serve option (ServeOption) says.
type Service struct {
	handlers *Handlers
	h        transport.Handler
	maxBytes int
}

// NewService serves with h the requests delivered at e.
func NewService(e Endpoint, h transport.Handler) *Service {
	return &Service{handlers: NewHandlers(e.Options[ServeOption.Name]), h: h, maxBytes: e.MaxBytes}
}

// Take serves one request message (metadata m, body) and hands send its
// reply, as Serve does; then, when done is not nil, runs done under the
// same context, whether the request was served or found past its
// deadline (an acknowledgement to the broker, say). A nil send is a
// message with nobody to answer: it is not served, only done.
func (s *Service) Take(m Meta, body []byte, send func(context.Context, Meta, []byte), done func(context.Context)) {
	s.handlers.Go(func(ctx context.Context) {
		if send != nil {
			Serve(ctx, s.h, m, body, s.maxBytes, send)
		}
		if done != nil {
			done(ctx)
		}
	})
}

// Close ends the requests in flight and waits for them.
func (s *Service) Close() { s.handlers.Close() }

// Call makes one call through p: it checks the request's body, registers
// the call, hands send its correlation id and the request's metadata to
// publish, and waits for the reply. A publish that fails forgets the
// call. Once ctx has ended, a failure is ctx's (transport.CutOff),
// whatever failed with it: a run that is stopped cancels its calls and
// closes its connections at once, and a connection or channel found
// closed must not count as a failure of the service.
func (p *Pending) Call(ctx context.Context, req *transport.Request, maxBytes int, send func(id string, m Meta) error) ([]byte, error) {
	if err := transport.CheckBody("request body", req.Body, maxBytes); err != nil {
		return nil, err
	}
	id, wait, err := p.Add()
	if err != nil {
		return nil, transport.CutOff(ctx, err)
	}
	if err := send(id, RequestMeta(ctx, req)); err != nil {
		p.Remove(id)
		return nil, transport.CutOff(ctx, err)
	}
	return p.Wait(ctx, id, wait, maxBytes)
}
