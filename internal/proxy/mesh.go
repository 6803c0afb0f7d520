package proxy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hopbench/hopbench/internal/certs"
)

// Config is a run's mesh: its settings, the HTTP version an L7 proxy
// speaks (transport.HTTPVersionOf), where its proxies' files go and, for
// mutual TLS between sidecars, the certificates' directory
// (certs.LoadOrCreate's).
type Config struct {
	Settings
	HTTP   string
	Dir    string
	TLSDir string
}

// Mesh is a run's proxies, started hop by hop (Front) and closed
// together.
type Mesh struct {
	cfg    Config
	kind   Kind
	server *TLSFiles // an inbound sidecar's
	client *TLSFiles // an outbound sidecar's
	procs  []*Process
	// failed says a proxy did not start: its files are kept.
	failed bool
}

// New prepares a run's mesh: its kind, installed, and with mutual TLS
// the certificates in the forms the kind reads.
func New(cfg Config) (*Mesh, error) {
	k, err := Lookup(cfg.Kind)
	if err != nil {
		return nil, err
	}
	if err := Installed(k); err != nil {
		return nil, err
	}
	// A proxy runs in its own directory: a relative path (hopbench run
	// --out results/x) would name another place from there.
	if err := absolute(&cfg.Dir, &cfg.TLSDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	m := &Mesh{cfg: cfg, kind: k}
	if cfg.MTLS {
		if m.server, m.client, err = tlsFiles(cfg.TLSDir, cfg.Dir); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// absolute makes each non-empty path absolute.
func absolute(paths ...*string) error {
	for _, p := range paths {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	return nil
}

// tlsFiles are the server's and client's certificates of the bundle in
// dir, each also as one PEM (written to out), as HAProxy reads them.
func tlsFiles(dir, out string) (server, client *TLSFiles, err error) {
	ca, cert, key := certs.ServerFiles(dir)
	_, ccert, ckey := certs.ClientFiles(dir)
	server, client = &TLSFiles{CA: ca, Cert: cert, Key: key}, &TLSFiles{CA: ca, Cert: ccert, Key: ckey}
	for name, f := range map[string]*TLSFiles{"server": server, "client": client} {
		c, err1 := os.ReadFile(f.Cert)
		k, err2 := os.ReadFile(f.Key)
		if err := errors.Join(err1, err2); err != nil {
			return nil, nil, fmt.Errorf("proxy certificates: %w", err)
		}
		f.PEM = filepath.Join(out, name+".pem")
		if err := os.WriteFile(f.PEM, append(c, k...), 0o600); err != nil {
			return nil, nil, err
		}
	}
	return server, client, nil
}

// Front starts the proxies of one hop, named hop ("0→1"), in front of
// upstream and returns the address its caller dials instead: one proxy's,
// or with two sidecars the outbound one's, which relays to the inbound
// one beside upstream (over mutual TLS when asked).
func (m *Mesh) Front(ctx context.Context, hop, upstream string) (string, error) {
	return m.FrontAt(ctx, hop, "", upstream)
}

// FrontAt is Front with the front at listen, when not empty: where a
// broker that advertises its addresses (Kafka) sends its clients.
func (m *Mesh) FrontAt(ctx context.Context, hop, listen, upstream string) (string, error) {
	if m.cfg.Sidecars < 2 {
		return m.leg(ctx, "hop "+hop, listen, upstream, nil, nil)
	}
	in, err := m.leg(ctx, "hop "+hop+" inbound", "", upstream, m.server, nil)
	if err != nil {
		return "", err
	}
	return m.leg(ctx, "hop "+hop+" outbound", listen, in, nil, m.client)
}

// leg starts one proxy, role, relaying to upstream, and returns where it
// listens: at, or when at is empty a free port, chosen again when taken
// between its choice and the proxy's bind.
func (m *Mesh) leg(ctx context.Context, role, at, upstream string, accept, originate *TLSFiles) (string, error) {
	var err error
	for range 3 {
		listen := at
		if listen == "" {
			if listen, err = freeAddr(); err != nil {
				return "", err
			}
		}
		l := Leg{Mode: m.cfg.Mode, HTTP: m.cfg.HTTP, Listen: listen, Upstream: upstream, Accept: accept, Originate: originate,
			Dir: filepath.Join(m.cfg.Dir, slug(role))}
		var p *Process
		if p, err = start(ctx, m.kind, role, l); err == nil {
			m.procs = append(m.procs, p)
			return listen, nil
		}
		if at != "" && errors.Is(err, errExitedEarly) {
			err = fmt.Errorf("%s must listen at %s, where its callers are sent, and could not (the address is taken: by another run proxying the same broker, or by another process; stopping the broker lets hopbench choose anew): %w", role, at, err)
		}
		if at != "" || ctx.Err() != nil || !errors.Is(err, errExitedEarly) {
			break
		}
	}
	m.failed = true
	return "", err
}

// slug is a role as a directory name: "hop 0→1 inbound" is
// hop-0-1-inbound.
func slug(role string) string {
	return strings.Join(strings.FieldsFunc(role, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }), "-")
}

// Processes are the mesh's proxies, in the order they started.
func (m *Mesh) Processes() []*Process { return m.procs }

// Close stops every proxy. When all started and none exited before it,
// their directory goes too (a study's results keep no configuration a
// run); otherwise it stays, with their logs, for what went wrong.
func (m *Mesh) Close() error {
	var errs []error
	clean := !m.failed
	for _, p := range m.procs {
		clean = clean && p.Exit() == ""
		errs = append(errs, p.Close())
	}
	err := errors.Join(errs...)
	if clean && err == nil {
		return os.RemoveAll(m.cfg.Dir)
	}
	return err
}
