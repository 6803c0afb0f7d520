package certs

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// Files in a bundle directory.
const (
	caFile         = "ca.pem"
	serverCertFile = "server.pem"
	serverKeyFile  = "server-key.pem"
	clientCertFile = "client.pem"
	clientKeyFile  = "client-key.pem"
)

// LoadOrCreate returns the bundle stored in dir, making and storing a new
// one first when dir does not exist or is empty. Nodes in separate processes that share
// dir share one CA, so they can call each other over TLS. The bundle is
// written to a temporary directory renamed into place, so concurrent
// starters never see half a bundle. A new bundle's certificates also name
// the addresses given.
func LoadOrCreate(dir string, also ...net.IP) (*Bundle, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return Load(dir)
	} else if err == nil {
		os.Remove(dir) // an empty directory is filled: made here, in place of it
	}
	b, err := New(also...)
	if err != nil {
		return nil, err
	}
	if err := b.Store(dir); err != nil {
		if _, statErr := os.Stat(dir); statErr == nil {
			return Load(dir) // another process made it first
		}
		return nil, err
	}
	return b, nil
}

// Store writes the bundle to dir, which must not exist: to a temporary
// directory renamed into place, so a reader never sees half a bundle.
func (b *Bundle) Store(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".certs-*")
	if err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after a successful rename
	if err := b.save(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	return nil
}

func (b *Bundle) save(dir string) error {
	keyPEM := func(c tls.Certificate) ([]byte, error) {
		der, err := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), err
	}
	certPEM := func(c tls.Certificate) []byte {
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]})
	}
	serverKey, err1 := keyPEM(b.server)
	clientKey, err2 := keyPEM(b.client)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("certs: %w", err)
	}
	files := map[string][]byte{
		caFile: b.CAPEM, serverCertFile: certPEM(b.server), serverKeyFile: serverKey,
		clientCertFile: certPEM(b.client), clientKeyFile: clientKey,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return fmt.Errorf("certs: %w", err)
		}
	}
	return nil
}

// Load reads a bundle that LoadOrCreate stored in dir.
func Load(dir string) (*Bundle, error) {
	ca, err := os.ReadFile(filepath.Join(dir, caFile))
	if err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	b := &Bundle{CAPEM: ca, pool: x509.NewCertPool()}
	if !b.pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("certs: %s holds no certificate", filepath.Join(dir, caFile))
	}
	if b.server, err = tls.LoadX509KeyPair(filepath.Join(dir, serverCertFile), filepath.Join(dir, serverKeyFile)); err != nil {
		return nil, fmt.Errorf("certs: server certificate in %s: %w", dir, err)
	}
	if b.client, err = tls.LoadX509KeyPair(filepath.Join(dir, clientCertFile), filepath.Join(dir, clientKeyFile)); err != nil {
		return nil, fmt.Errorf("certs: client certificate in %s: %w", dir, err)
	}
	return b, nil
}

// ServerFiles are the paths of the CA certificate and of the server's
// certificate and private key (PKCS#8) in a bundle directory, for brokers
// that read their TLS settings from files.
func ServerFiles(dir string) (ca, cert, key string) {
	return filepath.Join(dir, caFile), filepath.Join(dir, serverCertFile), filepath.Join(dir, serverKeyFile)
}

// ClientFiles are the paths of the CA certificate and of the client's
// certificate and private key (PKCS#8) in a bundle directory, for proxies
// that present it (an outbound sidecar's).
func ClientFiles(dir string) (ca, cert, key string) {
	return filepath.Join(dir, caFile), filepath.Join(dir, clientCertFile), filepath.Join(dir, clientKeyFile)
}
