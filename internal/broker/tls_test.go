package broker_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/certs"
)

// Every broker started with a TLS directory takes plain clients at its
// address and TLS clients at its TLS address; with mutual TLS, a TLS client
// without the certificate is refused.
func TestBrokersTakeTLSBesidePlainClients(t *testing.T) {
	for _, name := range broker.Names {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name != "nats" {
				t.Skip("starts a real broker")
			}
			isolatedLeases(t)
			cfg := brokertest.Config(t)
			cfg.TLSDir, cfg.MTLS = filepath.Join(t.TempDir(), "tls"), true
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			b, err := broker.Start(ctx, name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if b.TLSAddr == "" || !b.MTLS || b.TLSDir != cfg.TLSDir {
				t.Fatalf("broker %+v: want its TLS address, directory and mtls", b)
			}
			bundle, err := certs.Load(cfg.TLSDir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := broker.Probe(ctx, name, b.Addr); err != nil {
				t.Errorf("plain client at %s: %v", b.Addr, err)
			}
			if _, err := broker.ProbeTLS(ctx, name, b.TLSAddr, bundle.Client(true)); err != nil {
				t.Errorf("TLS client with its certificate at %s: %v", b.TLSAddr, err)
			}
			pctx, pcancel := context.WithTimeout(ctx, 10*time.Second)
			defer pcancel()
			if _, err := broker.ProbeTLS(pctx, name, b.TLSAddr, bundle.Client(false)); err == nil {
				t.Errorf("a TLS client without a certificate was taken at %s under mutual TLS", b.TLSAddr)
			} else {
				t.Logf("refused: %v", err)
			}
			// Nor a plain client: mutual TLS is a listener of its own,
			// beside the plain one (NATS used to serve both on one port).
			if b.TLSAddr == b.Addr {
				t.Errorf("mutual TLS at %s shares the plain listener", b.TLSAddr)
			}
			if _, err := broker.Probe(pctx, name, b.TLSAddr); err == nil {
				t.Errorf("a plain client without a certificate was answered at %s under mutual TLS", b.TLSAddr)
			} else {
				t.Logf("plain client refused: %v", err)
			}
			// A second user learns the TLS listener from the first's state.
			again, err := broker.Start(ctx, name, broker.Config{Dir: cfg.Dir, Addr: cfg.Addr, InProcess: true})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if again.Started || again.TLSAddr != b.TLSAddr || again.TLSDir != b.TLSDir {
				t.Errorf("found running: %+v, want its TLS listener learnt", again)
			}
		})
	}
}
