package proxy

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/certs"
)

// skipWithout skips a test whose proxy is not installed, and every one
// under -short.
func skipWithout(t *testing.T, kind string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real proxies")
	}
	k, err := Lookup(kind)
	if err != nil {
		t.Fatal(err)
	}
	if err := Installed(k); err != nil {
		t.Skip(err)
	}
}

// upstream serves "hello" over HTTP/1.1 and h2c on loopback.
func upstream(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv := &http.Server{Protocols: p, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello "+r.Proto)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

func get(t *testing.T, addr string, h2 bool) string {
	t.Helper()
	tr := &http.Transport{}
	if h2 {
		p := new(http.Protocols)
		p.SetUnencryptedHTTP2(true)
		tr.Protocols = p
	}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("GET through the proxies: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestEveryKindModeAndSidecarsCarriesACall puts each kind at each mode, one
// proxy and two sidecars with mutual TLS between them, before an HTTP
// server, and calls it through them over HTTP/1.1 and h2c.
func TestEveryKindModeAndSidecarsCarriesACall(t *testing.T) {
	tlsDir := filepath.Join(t.TempDir(), "tls")
	if _, err := certs.LoadOrCreate(tlsDir); err != nil {
		t.Fatal(err)
	}
	for _, kind := range Kinds() {
		for _, mode := range []Mode{L4, L7} {
			for _, s := range []Settings{{Sidecars: 1}, {Sidecars: 2, MTLS: true}} {
				for _, httpv := range []string{"http/1.1", "h2"} {
					s.Kind, s.Mode = kind, mode
					t.Run(s.String()+"/"+httpv, func(t *testing.T) {
						skipWithout(t, kind)
						m, err := New(Config{Settings: s, HTTP: httpv, Dir: t.TempDir(), TLSDir: tlsDir})
						if err != nil {
							t.Fatal(err)
						}
						defer m.Close()
						front, err := m.Front(context.Background(), "0→1", upstream(t))
						if err != nil {
							t.Fatal(err)
						}
						if got, want := len(m.Processes()), s.Sidecars; got != want {
							t.Fatalf("%d proxies, want %d", got, want)
						}
						want := "hello HTTP/1.1"
						if httpv == "h2" {
							want = "hello HTTP/2.0" // L4 relays h2c; L7 speaks it both sides
						}
						if got := get(t, front, httpv == "h2"); got != want {
							t.Fatalf("reply %q, want %q", got, want)
						}
						if s.Sidecars == 2 {
							refusesCertless(t, m.Processes()[0].Leg.Listen, tlsDir)
						}
					})
				}
			}
		}
	}
}

// refusesCertless checks that an inbound sidecar serves no client that
// presents no certificate: the handshake fails or the connection closes
// unanswered (HAProxy, nginx's stream),
// or the request is answered with an error (nginx's http answers 400).
func refusesCertless(t *testing.T, addr, tlsDir string) {
	t.Helper()
	b, err := certs.Load(tlsDir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tls.Dial("tcp", addr, b.Client(false))
	if err != nil {
		return
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
	got, _ := io.ReadAll(c)
	if strings.Contains(string(got), "hello") {
		t.Fatalf("a client without a certificate was answered %q by the inbound sidecar", got)
	}
}
