// Package rest is the REST stack on net/http: the body codec is chosen per
// call by Content-Type and Accept, compression by Content-Encoding, over
// HTTP/1.1 or HTTP/2 (h2c without TLS, h2 with); rest-h3 serves the same
// routes over HTTP/3.
//
//	GET  /v1/{model}?count=N                  get
//	POST /v1/{model}                          post
//	POST /v1/{model}/echo                     echo
//	GET  /v1/{model}/feed?count=C&messages=N  feed: N messages of C items
//
// A feed's reply streams, each message flushed as it is sent, in one of
// two forms. Uncompressed JSON (Accept: text/event-stream, none or */*)
// comes as server-sent events (Content-Type: text/event-stream): a message
// is an event whose data lines are its lines, and the last event is
// "end", whose data is the number of messages sent:
//
//	data: {"name":"a"}\n\n  …  event: end\ndata: N\n\n
//
// Asked for in a codec's media type (JSON's too, as hopbench asks for it
// compressed), with Hopbench-Accept-Message-Encoding: gzip or zstd to
// compress, a feed comes in frames laid out as Connect's envelopes
// (Content-Type: the codec's; framing=prefixed): a flag byte, the body's
// length in 4 bytes big-endian, the body. A message's flag is 0x00, its
// body the message, compressed on its own as a unary body is (its coding
// in Hopbench-Message-Encoding: the stream as a whole has no
// Content-Encoding). The end's flag is 0x02 and its body empty.
//
// A failure before the first message is answered as a unary call's is
// (its status and X-Hopbench-Error); after it, the end says it, as the
// text "code: message" with the code's name (transport.Code's): the data
// of an "error" event, or the end frame's body. A message over the
// server's size limit is not sent: the feed fails as too large.
package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

func init() { transport.Register(Transport{}) }

// Transport is the rest stack.
type Transport struct{}

func (Transport) Name() string { return "rest" }

// Caps: every codec and compression, feeds as a streamed reply (see the
// package comment), HTTP/2 when the run asks (an L7 proxy carries it).
func (Transport) Caps() transport.Caps {
	return transport.Caps{
		Codecs: codec.Names(),
		Feeds:  true,
		HTTP:   transport.HTTPEither,
		Traits: transport.Traits{
			Notes: []string{"any HTTP client, browser or curl calls it; caching proxies and tooling understand it"},
		},
	}
}

// Protocols returns the HTTP versions a Config asks for: HTTP/1.1, or with
// HTTP2 h2 over TLS and h2c without.
func Protocols(cfg transport.Config) *http.Protocols {
	p := new(http.Protocols)
	switch {
	case !cfg.HTTP2:
		p.SetHTTP1(true)
	case cfg.ServerTLS != nil || cfg.ClientTLS != nil:
		p.SetHTTP2(true)
	default:
		p.SetUnencryptedHTTP2(true)
	}
	return p
}

// Listen serves h on addr until the server is closed.
func (Transport) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	return listen(ctx, addr, cfg, newMux(h, cfg))
}

// listen serves handler as rest serves its routes.
func listen(ctx context.Context, addr string, cfg transport.Config, handler http.Handler) (transport.Server, error) {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("rest: listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:   handler,
		TLSConfig: cfg.ServerTLS,
		Protocols: Protocols(cfg),
	}
	return ServeHTTP(Bound(l, srv, cfg.Conns), srv), nil
}

// Bound applies limits to an HTTP server and its listener: the time a
// request (headers and body) may take to arrive and a reply to leave, how
// long an idle keep-alive connection stays, and how many connections are
// open at once (one more is answered 503 and closed).
func Bound(l net.Listener, srv *http.Server, limits transport.ConnLimits) net.Listener {
	lim := limits.OrDefault()
	srv.ReadHeaderTimeout = min(10*time.Second, lim.ReadTimeout)
	srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout = lim.ReadTimeout, 2*lim.ReadTimeout, lim.IdleTimeout
	return transport.LimitConns(l, lim.MaxConns, func(c net.Conn) {
		msg := fmt.Sprintf("hopbench node: %d connections open, its limit: try again later\n", lim.MaxConns)
		c.SetWriteDeadline(time.Now().Add(time.Second))
		fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg)
	})
}

// ServeHTTP serves srv on l (TLS when srv.TLSConfig is set) and returns a
// Server whose Close also waits for every connection's goroutine:
// http.Server.Close does not, and a connection answered with an error
// lingers half a second (net/http's reset-avoidance delay).
func ServeHTTP(l net.Listener, srv *http.Server) transport.Server {
	var conns sync.WaitGroup
	srv.ConnState = func(_ net.Conn, state http.ConnState) {
		switch state {
		case http.StateNew:
			conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			conns.Done()
		}
	}
	serve := srv.Serve
	if srv.TLSConfig != nil {
		// ServeTLS sets up HTTP/2 by writing to the server's TLSConfig
		// (NextProtos): a config the caller shares between servers (two
		// nodes of one process, as in the combinations suite) raced.
		srv.TLSConfig = srv.TLSConfig.Clone()
		serve = func(l net.Listener) error { return srv.ServeTLS(l, "", "") }
	}
	stop := func() error {
		err := srv.Close()
		conns.Wait()
		return err
	}
	return transport.RunServer(l, serve, stop, http.ErrServerClosed)
}

// newMux routes the stack's calls. A feed's writes may each take twice
// the read timeout, as rest.Bound's WriteTimeout gives a whole reply.
func newMux(h transport.Handler, cfg transport.Config) http.Handler {
	maxBytes, writeFor := cfg.MaxBytesOrDefault(), 2*cfg.Conns.OrDefault().ReadTimeout
	mux := http.NewServeMux()
	serve := func(op transport.Op) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { serveCall(w, r, op, h, maxBytes) }
	}
	mux.HandleFunc("GET /v1/{model}", serve(transport.OpGet))
	mux.HandleFunc("POST /v1/{model}", serve(transport.OpPost))
	mux.HandleFunc("POST /v1/{model}/echo", serve(transport.OpEcho))
	mux.HandleFunc("GET /v1/{model}/feed", func(w http.ResponseWriter, r *http.Request) { serveFeed(w, r, h, maxBytes, writeFor) })
	return mux
}

func serveCall(w http.ResponseWriter, r *http.Request, op transport.Op, h transport.Handler, maxBytes int) {
	req, err := parseRequest(r, op, maxBytes)
	if err != nil {
		writeError(w, err)
		return
	}
	reply, err := h.Bytes(r.Context(), req)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", req.Codec.ContentType())
	if enc := req.Compression.Encoding(); enc != "" {
		w.Header().Set("Content-Encoding", enc)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
	w.Write(reply) // a failed write means the client left; nothing to tell it
}

func parseRequest(r *http.Request, op transport.Op, maxBytes int) (*transport.Request, error) {
	req := &transport.Request{Op: op, Model: r.PathValue("model")}
	var err error
	if op == transport.OpGet {
		if req.Count, err = parseCount(r.URL.Query().Get("count")); err != nil {
			return nil, err
		}
		req.Codec, err = codecFor(r.Header.Get("Accept"))
		if err != nil {
			return nil, err
		}
		req.Compression, err = compressionFor(r.Header.Get("Accept-Encoding"))
		return req, err
	}
	if req.Codec, err = codecFor(r.Header.Get("Content-Type")); err != nil {
		return nil, err
	}
	if req.Compression, err = codec.ForEncoding(r.Header.Get("Content-Encoding")); err != nil {
		return nil, transport.Errorf(transport.CodeBadRequest, "%w", err)
	}
	if r.ContentLength > int64(maxBytes) {
		return nil, transport.TooLarge("request body", int(r.ContentLength), maxBytes)
	}
	req.Body, err = io.ReadAll(http.MaxBytesReader(nil, r.Body, int64(maxBytes)))
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		return nil, transport.TooLarge("request body", -1, maxBytes)
	case err != nil:
		return nil, transport.Errorf(transport.CodeBadRequest, "reading the request body: %w", err)
	}
	return req, nil
}

// parseCount reads the count query parameter of a get or a feed.
func parseCount(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, transport.Errorf(transport.CodeBadRequest, "query parameter count=%q: want a whole number of items, e.g. ?count=10", s)
	}
	return n, nil
}

// codecFor picks the codec of a Content-Type or Accept value; none or */*
// means JSON, what a plain HTTP client expects.
func codecFor(mediaType string) (codec.Codec, error) {
	if mediaType == "" || mediaType == "*/*" {
		return codec.Lookup("json")
	}
	c, err := codec.ForContentType(mediaType)
	if err != nil {
		return nil, &transport.Error{Code: transport.CodeBadRequest, Msg: err.Error()}
	}
	return c, nil
}

// compressionFor honours an Accept-Encoding of exactly one supported coding,
// as hopbench's own clients send; anything else gets an uncompressed reply.
func compressionFor(acceptEncoding string) (codec.Compression, error) {
	if z, err := codec.ForEncoding(acceptEncoding); err == nil {
		return z, nil
	}
	return codec.LookupCompression("none")
}

var statusOf = map[transport.Code]int{
	transport.CodeInternal:    http.StatusInternalServerError,
	transport.CodeBadRequest:  http.StatusBadRequest,
	transport.CodeTooLarge:    http.StatusRequestEntityTooLarge,
	transport.CodeUnavailable: http.StatusServiceUnavailable,
	transport.CodeDeadline:    http.StatusGatewayTimeout,
	transport.CodeNotFound:    http.StatusNotFound,
}

func writeError(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Hopbench-Error", transport.CodeOf(err).String())
	w.WriteHeader(statusOf[transport.CodeOf(err)])
	io.WriteString(w, err.Error()+"\n")
}
