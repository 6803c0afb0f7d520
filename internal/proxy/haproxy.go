package proxy

import (
	"fmt"
	"strings"

	"github.com/hopbench/hopbench/internal/transport"
)

// haproxy is Debian's HAProxy: one process (-db keeps it in the
// foreground), one thread, as a sidecar given one CPU's share runs it;
// TCP mode at L4, HTTP mode at L7 with HTTP/2 both sides for h2.
type haproxy struct{}

func init() { register(haproxy{}) }

func (haproxy) Name() string    { return "haproxy" }
func (haproxy) Binary() string  { return "/usr/sbin/haproxy" }
func (haproxy) Package() string { return "haproxy" }

func (haproxy) Args(path string, _ Leg) []string { return []string{"-db", "-f", path} }

func (haproxy) Config(l Leg) string {
	mode := "tcp"
	if l.Mode == L7 {
		mode = "http"
	}
	var b strings.Builder
	// noreuseport: with SO_REUSEPORT two runs' proxies listened on one
	// address, each crediting itself with the other's traffic.
	fmt.Fprintf(&b, "global\n\tnbthread 1\n\tmaxconn 4096\n\tnoreuseport\n\n")
	fmt.Fprintf(&b, "defaults\n\tmode %s\n\tmaxconn 4096\n\ttimeout connect 5s\n\ttimeout client 10m\n\ttimeout server 10m\n\ttimeout tunnel 10m\n", mode)
	if l.Mode == L7 {
		b.WriteString("\ttimeout http-keep-alive 10m\n\thttp-reuse always\n")
	}
	fmt.Fprintf(&b, "\nfrontend leg\n\tbind %s%s\n\tdefault_backend upstream\n", l.Listen, haproxyTLS(l, l.Accept))
	fmt.Fprintf(&b, "\nbackend upstream\n\tserver next %s%s\n", l.Upstream, haproxyTLS(l, l.Originate))
	return b.String()
}

// haproxyTLS is a bind or server line's TLS and protocol settings: TLS
// with files, and at L7 the HTTP version (ALPN over TLS, proto h2 for
// h2c); a bind with TLS ends it and a server opens it, each presenting
// its certificate and requiring the other's, signed by the CA.
func haproxyTLS(l Leg, files *TLSFiles) string {
	var s string
	if files != nil {
		s = fmt.Sprintf(" ssl crt %s ca-file %s verify required", files.PEM, files.CA)
	}
	if l.Mode != L7 {
		return s
	}
	switch {
	case files != nil:
		s += " alpn " + l.HTTP
	case l.HTTP == transport.HTTP2:
		s += " proto h2"
	}
	return s
}
