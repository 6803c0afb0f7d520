package rest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

func init() { transport.Register(H3{}) }

// H3 is the rest-h3 stack: the rest stack's routes, codecs and
// compression over HTTP/3 (QUIC, github.com/quic-go/quic-go), with the
// TLS 1.3 QUIC requires.
type H3 struct{}

func (H3) Name() string { return "rest-h3" }

// Caps: rest's codecs, compressions and feeds over QUIC, which needs
// TLS 1.3 and is UDP, which no TCP proxy (L4 or L7) carries.
func (H3) Caps() transport.Caps {
	return transport.Caps{
		Codecs:    codec.Names(),
		Feeds:     true,
		NeedsTLS:  "rest-h3 runs over QUIC, which needs TLS 1.3",
		Unproxied: "HTTP/3 is QUIC over UDP, which a TCP proxy (L4 or L7) does not carry",
		LocalOnly: "rest-h3 does not run on hosts of their own yet: run it on this machine",
		Traits: transport.Traits{
			Notes: []string{"HTTP/3 over QUIC (UDP): no head-of-line blocking between requests; browsers reach it after an Alt-Svc upgrade", "some networks block or throttle UDP"},
		},
	}
}

var errH3NeedsTLS = errors.New(H3{}.Caps().NeedsTLS + ": serve and call it with TLS (a spec's tls: true; hopbench node --tls)")

// Listen serves h on addr's UDP port until the server is closed.
func (H3) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	return listenH3(ctx, addr, cfg, newMux(h, cfg))
}

// listenH3 serves handler as rest-h3 serves its routes.
func listenH3(ctx context.Context, addr string, cfg transport.Config, handler http.Handler) (transport.Server, error) {
	if cfg.ServerTLS == nil {
		return nil, errH3NeedsTLS
	}
	var lc net.ListenConfig
	pc, err := lc.ListenPacket(ctx, "udp", addr)
	if err != nil {
		return nil, fmt.Errorf("rest-h3: listen on %s: %w", addr, err)
	}
	lim := cfg.Conns.OrDefault()
	tlsConf := http3.ConfigureTLSConfig(cfg.ServerTLS)
	quicConf := &quic.Config{MaxIdleTimeout: lim.IdleTimeout, HandshakeIdleTimeout: lim.ReadTimeout}
	ln, err := quic.ListenEarly(pc, tlsConf, quicConf)
	if err != nil {
		pc.Close()
		return nil, fmt.Errorf("rest-h3: listen on %s: %w", addr, err)
	}
	srv := &http3.Server{Handler: readTimeouts(handler, lim.ReadTimeout), TLSConfig: tlsConf, IdleTimeout: lim.IdleTimeout, QUICConfig: quicConf}
	s := &h3Server{pc: pc, srv: srv, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.err = srv.ServeListener(&boundedQUIC{EarlyListener: ln, max: int64(lim.MaxConns)})
	}()
	return s, nil
}

// readTimeouts gives each request the time the TCP stacks give it
// (Bound): readTimeout for its body to arrive, twice that for its reply
// to leave. http3.Server has no such setting: a body trickled a byte
// every 2 s stayed open 75 s against a 6 s limit.
func readTimeouts(next http.Handler, readTimeout time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now().Add(readTimeout))
		rc.SetWriteDeadline(time.Now().Add(2 * readTimeout))
		next.ServeHTTP(w, r)
	})
}

// boundedQUIC refuses connections past max open at once, as the TCP
// stacks' listeners do (transport.LimitConns): http3.Server has no such
// bound, and 300 QUIC connections under --max-conns 100 were all served.
type boundedQUIC struct {
	*quic.EarlyListener
	open atomic.Int64
	max  int64
}

// errTooManyConns is the application error a connection past the bound
// is closed with (H3_EXCESSIVE_LOAD).
const errTooManyConns = quic.ApplicationErrorCode(0x0107)

func (l *boundedQUIC) Accept(ctx context.Context) (*quic.Conn, error) {
	for {
		c, err := l.EarlyListener.Accept(ctx)
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			c.CloseWithError(errTooManyConns, fmt.Sprintf("hopbench node: %d connections open, its limit: try again later", l.max))
			continue
		}
		go func() {
			<-c.Context().Done()
			l.open.Add(-1)
		}()
		return c, nil
	}
}

type h3Server struct {
	pc   net.PacketConn
	srv  *http3.Server
	done chan struct{}
	err  error
}

func (s *h3Server) Addr() string { return s.pc.LocalAddr().String() }

func (s *h3Server) Close() error {
	err := s.srv.Close()
	s.pc.Close() // the server does not close the socket it was given
	<-s.done
	if errors.Is(s.err, http.ErrServerClosed) || errors.Is(s.err, quic.ErrServerClosed) || errors.Is(s.err, net.ErrClosed) {
		s.err = nil
	}
	return errors.Join(err, s.err)
}

// Dial returns a client of the rest-h3 server at target: one QUIC
// connection, from a UDP socket of the Config's dialer (its bytes
// counted), carrying every call as a stream.
func (H3) Dial(_ context.Context, target string, cfg transport.Config) (transport.Client, error) {
	if cfg.ClientTLS == nil {
		return nil, errH3NeedsTLS
	}
	sockets := &udpSockets{dialer: cfg.Dialer}
	rt := &http3.Transport{TLSClientConfig: cfg.ClientTLS, DisableCompression: true, Dial: sockets.dial}
	c := &client{base: "https://" + target, maxBytes: cfg.MaxBytesOrDefault(), http: &http.Client{Transport: rt}}
	return &h3Client{client: c, rt: rt, sockets: sockets}, nil
}

// udpSockets opens a UDP socket for each QUIC connection the client
// dials, and closes them all with the client (quic.Dial leaves its socket
// to its caller).
type udpSockets struct {
	dialer transport.Dialer
	mu     sync.Mutex
	open   []net.PacketConn
}

func (u *udpSockets) dial(ctx context.Context, addr string, tlsCfg *tls.Config, qcfg *quic.Config) (*quic.Conn, error) {
	pc, err := u.listen(ctx)
	if err != nil {
		return nil, err
	}
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err == nil {
		var conn *quic.Conn
		if conn, err = quic.DialEarly(ctx, pc, ua, tlsCfg, qcfg); err == nil {
			u.mu.Lock()
			u.open = append(u.open, pc)
			u.mu.Unlock()
			return conn, nil
		}
	}
	pc.Close()
	return nil, err
}

func (u *udpSockets) listen(ctx context.Context) (net.PacketConn, error) {
	if pd, ok := u.dialer.(transport.PacketDialer); ok {
		return pd.ListenPacket(ctx)
	}
	if u.dialer != nil {
		return nil, errors.New("rest-h3: this dialer opens no UDP sockets")
	}
	var lc net.ListenConfig
	return lc.ListenPacket(ctx, "udp", ":0") // any address: the kernel routes each datagram
}

func (u *udpSockets) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, pc := range u.open {
		pc.Close()
	}
	u.open = nil
}

type h3Client struct {
	*client
	rt      *http3.Transport
	sockets *udpSockets
}

func (c *h3Client) Close() error {
	err := c.rt.Close()
	c.sockets.close()
	return err
}
