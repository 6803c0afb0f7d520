package broker

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/hopbench/hopbench/internal/certs"
)

// NATSMaxPayload is the largest message the NATS broker takes: hopbench's
// 64 MiB body limit and room for headers (NATS's default is 1 MiB).
const NATSMaxPayload = 64<<20 + 1<<20

// NATSServer is how the embedded server runs: JetStream with its store
// (StoreDir), and TLS with the certificates of
// Dir, beside plain clients on the same port (allow_non_tls); or, when
// Mutual, on a listener of its own at Addr that takes TLS clients with a
// certificate and nothing else, beside the plain listener (NATS cannot
// require client certificates on a port that also takes plain clients).
// The zero value is plain text only.
type NATSServer struct {
	Dir    string
	Mutual bool
	Addr   string // the mutual TLS listener's address
	// StoreDir turns JetStream on in the plain listener's server, with
	// its streams stored there (bounded by NATSJetStreamMemory and
	// NATSJetStreamStore).
	StoreDir string
}

// JetStream's bounds: a lab broker on a shared machine.
const (
	NATSJetStreamMemory = 512 << 20
	NATSJetStreamStore  = 8 << 30
)

// natsOptions are the embedded server's options for addr: plain, or with
// t's TLS beside plain clients (tls false) or alone (tls true: mutual, no
// plain client).
func natsOptions(addr string, t NATSServer, tlsOnly bool) (*server.Options, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("port %q: %w", portStr, err)
	}
	opts := &server.Options{
		ServerName: "hopbench",
		Host:       host,
		Port:       port,
		MaxPayload: NATSMaxPayload,
		MaxPending: 4 * NATSMaxPayload,
		NoSigs:     true,
		HTTPPort:   0,
	}
	if t.Dir != "" && (tlsOnly || !t.Mutual) {
		bundle, err := certs.Load(t.Dir)
		if err != nil {
			return nil, fmt.Errorf("nats TLS: %w", err)
		}
		opts.TLS, opts.TLSConfig, opts.TLSVerify, opts.AllowNonTLS = true, bundle.Server(t.Mutual), t.Mutual, !tlsOnly
		opts.TLSTimeout = 5
	}
	if t.StoreDir != "" && !tlsOnly {
		opts.JetStream, opts.StoreDir = true, t.StoreDir
		opts.JetStreamMaxMemory, opts.JetStreamMaxStore = NATSJetStreamMemory, NATSJetStreamStore
	}
	return opts, nil
}

// ServeNATS runs the embedded NATS server at addr (and its mutual TLS
// listener at t.Addr) until ctx ends; it is what `hopbench broker-process
// nats` runs. ready is called once it accepts connections.
func ServeNATS(ctx context.Context, addr string, t NATSServer, ready func()) error {
	stop, err := startEmbeddedNATS(addr, t, true)
	if err != nil {
		return err
	}
	if ready != nil {
		ready()
	}
	<-ctx.Done()
	stop()
	return nil
}

// startEmbeddedNATS starts the plain server at addr and, with mutual TLS,
// the TLS-only one at t.Addr; stop shuts down both.
func startEmbeddedNATS(addr string, t NATSServer, log bool) (stop func(), err error) {
	plain, err := startNATSServer(addr, t, false, log)
	if err != nil || !t.Mutual || t.Dir == "" {
		return func() { shutdownNATS(plain) }, err
	}
	if t.Addr == "" || t.Addr == addr {
		shutdownNATS(plain)
		return nil, fmt.Errorf("nats: mutual TLS needs a listener of its own beside %s", addr)
	}
	mutual, err := startNATSServer(t.Addr, t, true, log)
	if err != nil {
		shutdownNATS(plain)
		return nil, err
	}
	return func() { shutdownNATS(mutual); shutdownNATS(plain) }, nil
}

func startNATSServer(addr string, t NATSServer, tlsOnly, log bool) (*server.Server, error) {
	opts, err := natsOptions(addr, t, tlsOnly)
	if err != nil {
		return nil, err
	}
	opts.NoLog = !log
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, err
	}
	if log {
		srv.ConfigureLogger()
	}
	go srv.Start()
	if !srv.ReadyForConnections(10e9) {
		shutdownNATS(srv)
		return nil, fmt.Errorf("nats: not accepting connections at %s within 10s", addr)
	}
	return srv, nil
}

func shutdownNATS(srv *server.Server) {
	if srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
}

// startNATS runs NATS in a process of its own (this binary's hidden
// broker-process command), so its CPU and memory are measured apart from
// the load generator's; or in this process when cfg.InProcess.
func startNATS(_ context.Context, b *Broker, cfg Config) error {
	t := NATSServer{Dir: cfg.TLSDir, Mutual: cfg.MTLS, Addr: cfg.TLSAddr, StoreDir: filepath.Join(cfg.Dir, "jetstream")}
	if cfg.InProcess {
		stop, err := startEmbeddedNATS(cfg.Addr, t, false)
		if err != nil {
			return err
		}
		b.PID = os.Getpid()
		b.stop = func() error { stop(); return nil }
		return nil
	}
	bin := cfg.Bin
	if bin == "" {
		var err error
		if bin, err = os.Executable(); err != nil {
			return err
		}
	}
	b.Log = filepath.Join(cfg.Dir, "nats.log")
	argv := []string{bin, "broker-process", "nats", "--addr", cfg.Addr, "--store", t.StoreDir}
	if t.Dir != "" {
		argv = append(argv, "--tls-dir", t.Dir)
	}
	if t.Mutual {
		argv = append(argv, "--mtls", "--tls-addr", t.Addr)
	}
	p, err := spawn(argv, nil, cfg.Dir, b.Log, cfg.Detach)
	if err != nil {
		return err
	}
	b.proc = p
	return nil
}
