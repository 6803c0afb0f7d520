// Package certs makes a throwaway certificate authority and the server and
// client certificates signed by it, so every stack can run with TLS (and
// mutual TLS) on loopback without files or a real CA.
package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Bundle holds a CA and a server and a client certificate it signed.
type Bundle struct {
	CAPEM  []byte // the CA certificate, PEM, for external clients (curl --cacert)
	pool   *x509.CertPool
	server tls.Certificate
	client tls.Certificate
}

// New makes a fresh CA and certificates for 127.0.0.1, ::1 and localhost,
// and the addresses also given (an emulated network's hosts on this
// machine), valid for a day. ECDSA P-256 keeps handshakes cheap and
// typical.
func New(also ...net.IP) (*Bundle, error) { return newBundle(Names{IPs: also}, 24*time.Hour) }

// Names are what a bundle's certificates name beyond loopback: hosts'
// addresses and DNS names.
type Names struct {
	IPs []net.IP
	DNS []string
}

// ParseNames sorts hosts into addresses and DNS names.
func ParseNames(hosts []string) Names {
	var n Names
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			n.IPs = append(n.IPs, ip)
		} else {
			n.DNS = append(n.DNS, h)
		}
	}
	return n
}

// MaxValid bounds how long a bundle made by NewFor is valid.
const MaxValid = 366 * 24 * time.Hour

// NewFor makes a fresh CA and certificates for loopback and names, valid
// for valid (at most MaxValid): a bundle for hosts of their own, such as
// agents on a cluster.
func NewFor(names Names, valid time.Duration) (*Bundle, error) {
	if valid <= 0 || valid > MaxValid {
		return nil, fmt.Errorf("certs: validity %s: want more than 0 and at most %s", valid, MaxValid)
	}
	return newBundle(names, valid)
}

func newBundle(names Names, valid time.Duration) (*Bundle, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("certs: CA key: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "hopbench throwaway CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(valid),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("certs: CA: %w", err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	b := &Bundle{CAPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), pool: x509.NewCertPool()}
	b.pool.AddCert(ca)
	if b.server, err = leaf(ca, caKey, 2, "hopbench server", x509.ExtKeyUsageServerAuth, names); err != nil {
		return nil, err
	}
	if b.client, err = leaf(ca, caKey, 3, "hopbench client", x509.ExtKeyUsageClientAuth, names); err != nil {
		return nil, err
	}
	return b, nil
}

func leaf(ca *x509.Certificate, caKey *ecdsa.PrivateKey, serial int64, name string, usage x509.ExtKeyUsage, names Names) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certs: %s key: %w", name, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    ca.NotBefore,
		NotAfter:     ca.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		IPAddresses:  append([]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, names.IPs...),
		DNSNames:     append([]string{"localhost"}, names.DNS...),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certs: %s: %w", name, err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// Server returns a server TLS config; with mutual, clients must present a
// certificate signed by the CA.
func (b *Bundle) Server(mutual bool) *tls.Config {
	cfg := &tls.Config{Certificates: []tls.Certificate{b.server}, MinVersion: tls.VersionTLS12}
	if mutual {
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
		cfg.ClientCAs = b.pool
	}
	return cfg
}

// Client returns a client TLS config trusting the CA; with mutual, it
// presents the client certificate.
func (b *Bundle) Client(mutual bool) *tls.Config {
	cfg := &tls.Config{RootCAs: b.pool, MinVersion: tls.VersionTLS12}
	if mutual {
		cfg.Certificates = []tls.Certificate{b.client}
	}
	return cfg
}
