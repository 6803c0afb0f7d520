// Package ws is the ws stack: every call of a client over one WebSocket
// connection (github.com/coder/websocket), several in flight, matched to
// their replies by id (internal/transport/streamed); every codec and
// compression, hopbench's own (permessage-deflate off), over HTTP/1.1's
// upgrade, with or without TLS. HTTP/2 does not apply (WebSockets over
// HTTP/2, RFC 8441, are not served): the upgrade is HTTP/1.1's whatever a
// run's http2 says, as gRPC is HTTP/2's.
//
//	GET /v1/ws   Upgrade: websocket
package ws

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/rest"
	"github.com/hopbench/hopbench/internal/transport/streamed"
)

func init() { transport.Register(Transport{}) }

// Transport is the ws stack.
type Transport struct{}

func (Transport) Name() string { return "ws" }

// Caps: every codec and compression; feeds on the client's one
// connection, their messages interleaved with other calls'. Its calls are
// WebSocket messages, not HTTP requests, so only an L4 proxy carries them.
func (Transport) Caps() transport.Caps {
	return transport.Caps{
		Codecs: codec.Names(),
		Feeds:  true,
		Traits: transport.Traits{
			Notes: []string{"browsers open WebSockets natively", "one connection a client carries every call; a proxy must allow the upgrade"},
		},
	}
}

// path is where the stack's WebSocket is served.
const path = "/v1/ws"

// Listen serves h on addr: each WebSocket connection's calls, until the
// server is closed, which closes every connection and waits for its calls.
func (Transport) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ws: listen on %s: %w", addr, err)
	}
	s := &server{h: h, maxBytes: cfg.MaxBytesOrDefault(), idle: cfg.Conns.OrDefault().IdleTimeout, conns: map[*websocket.Conn]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+path, s.serve)
	srv := &http.Server{Handler: mux, TLSConfig: cfg.ServerTLS, Protocols: rest.Protocols(transport.Config{})}
	inner := rest.ServeHTTP(rest.Bound(l, srv, cfg.Conns), srv)
	return &closer{Server: inner, s: s}, nil
}

// server is the connections a ws server holds.
type server struct {
	h        transport.Handler
	maxBytes int
	idle     time.Duration
	mu       sync.Mutex
	conns    map[*websocket.Conn]bool
	closed   bool
	wg       sync.WaitGroup
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return // Accept has answered
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.CloseNow()
		return
	}
	s.conns[c] = true
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	c.SetReadLimit(-1) // Recv reads a message's first MessageLimit+1 bytes, and discards the rest
	st := newStream(c, s.idle, streamed.MessageLimit(s.maxBytes))
	err = streamed.Serve(st, s.h, s.maxBytes)
	st.end(err)
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// closer closes the HTTP server, then the WebSocket connections it handed
// over, and waits for their calls.
type closer struct {
	transport.Server
	s *server
}

func (c *closer) Close() error {
	c.s.mu.Lock()
	c.s.closed = true
	for conn := range c.s.conns {
		conn.CloseNow()
	}
	c.s.mu.Unlock()
	err := c.Server.Close()
	c.s.wg.Wait()
	return err
}

// Dial opens one WebSocket connection to the server at target; every
// call of the client goes over it, and over another when it ends (its
// server went, or closed it).
func (Transport) Dial(ctx context.Context, target string, cfg transport.Config) (transport.Client, error) {
	cfg.HTTP2 = false // the upgrade is HTTP/1.1's
	base := strings.Replace(rest.BaseURL(target, cfg), "http", "ws", 1)
	maxBytes := cfg.MaxBytesOrDefault()
	open := func(ctx context.Context) (*streamed.Client, error) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		c, resp, err := websocket.Dial(ctx, base+path, &websocket.DialOptions{HTTPClient: rest.NewHTTPClient(cfg), CompressionMode: websocket.CompressionDisabled})
		if err != nil {
			if resp != nil {
				resp.Body.Close()
			}
			return nil, &transport.Error{Code: transport.CodeUnavailable, Msg: fmt.Sprintf("ws: connecting to %s: %v", target, err), Err: err}
		}
		c.SetReadLimit(-1)
		return streamed.NewClient(newStream(c, 0, streamed.MessageLimit(maxBytes)), maxBytes), nil
	}
	return streamed.NewReopening(ctx, open, nil)
}

// stream is a WebSocket connection as a streamed.Stream: binary messages,
// read and written under the connection's own context (a call's context
// ending would close the whole connection: coder/websocket closes it on
// any error), a write bounded by writeTimeout, and a read by idle (0:
// none). A message is read to limit+1 bytes at most and the rest
// discarded, so that an oversize call is refused and the connection kept.
type stream struct {
	c      *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
	idle   time.Duration
	limit  int
}

const writeTimeout = time.Minute

func newStream(c *websocket.Conn, idle time.Duration, limit int) *stream {
	ctx, cancel := context.WithCancel(context.Background())
	return &stream{c: c, ctx: ctx, cancel: cancel, idle: idle, limit: limit}
}

func (s *stream) Send(b []byte) error {
	ctx, cancel := context.WithTimeout(s.ctx, writeTimeout)
	defer cancel()
	return s.c.Write(ctx, websocket.MessageBinary, b)
}

func (s *stream) Recv() ([]byte, error) {
	ctx := s.ctx
	if s.idle > 0 { // an idle connection is closed, as HTTP's keep-alives are
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.idle)
		defer cancel()
	}
	_, r, err := s.c.Reader(ctx)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(s.limit)+1))
	if err == nil && len(b) > s.limit {
		_, err = io.Copy(io.Discard, r)
	}
	return b, err
}

func (s *stream) Close() error {
	err := s.c.Close(websocket.StatusNormalClosure, "")
	s.cancel()
	return err
}

// end closes the stream after its serving ended with err.
func (s *stream) end(err error) {
	s.cancel()
	if err != nil && websocket.CloseStatus(err) == -1 {
		s.c.Close(websocket.StatusProtocolError, "hopbench ws: "+truncate(err.Error()))
		return
	}
	s.c.CloseNow()
}

// truncate keeps a close reason within the 123 bytes a close frame holds.
func truncate(s string) string {
	if len(s) > 120 {
		return s[:120]
	}
	return s
}
