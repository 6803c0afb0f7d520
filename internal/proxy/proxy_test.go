package proxy_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/proxy"
	"github.com/hopbench/hopbench/internal/proxy/proxytest"
)

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
	b, err := certs.LoadOrCreate(tlsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range proxy.Kinds() {
		for _, mode := range []proxy.Mode{proxy.L4, proxy.L7} {
			for _, s := range []proxy.Settings{{Sidecars: 1}, {Sidecars: 2, MTLS: true}} {
				for _, httpv := range []string{"http/1.1", "h2"} {
					s.Kind, s.Mode = kind, mode
					t.Run(s.String()+"/"+httpv, func(t *testing.T) {
						proxytest.Need(t)
						m, front := meshInFront(t, proxy.Config{Settings: s, HTTP: httpv, Dir: t.TempDir(), TLSDir: tlsDir})
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
							proxytest.RefusesCertless(t, m.Processes()[0].Leg.Listen, b.Client(false))
						}
					})
				}
			}
		}
	}
}

// A mesh made under a relative directory (hopbench run --out results/x)
// runs: each proxy runs in its own directory, so its paths are made
// absolute first.
func TestAMeshUnderARelativeDirectoryRuns(t *testing.T) {
	t.Chdir(t.TempDir())
	if _, err := certs.LoadOrCreate("tls"); err != nil {
		t.Fatal(err)
	}
	for _, kind := range proxy.Kinds() {
		t.Run(kind, func(t *testing.T) {
			proxytest.Need(t)
			s := proxy.Settings{Kind: kind, Mode: proxy.L7, Sidecars: 2, MTLS: true}
			_, front := meshInFront(t, proxy.Config{Settings: s, HTTP: "http/1.1", Dir: filepath.Join("results", "x", kind), TLSDir: "tls"})
			if got := get(t, front, false); got != "hello HTTP/1.1" {
				t.Fatalf("reply %q through proxies under a relative directory, want hello HTTP/1.1", got)
			}
		})
	}
}

// meshInFront starts a mesh of cfg in front of a test upstream on hop
// 0→1, closed when the test ends, and returns it and its front address.
func meshInFront(t *testing.T, cfg proxy.Config) (*proxy.Mesh, string) {
	t.Helper()
	m, err := proxy.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	front, err := m.Front(context.Background(), "0→1", upstream(t))
	if err != nil {
		t.Fatal(err)
	}
	return m, front
}
