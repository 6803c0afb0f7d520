package certs

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"testing"
)

// handshake runs a TLS handshake on loopback and returns the client's error
// (the server's verdict on a client certificate reaches the client on its
// first read).
func handshake(t *testing.T, server, client *tls.Config) error {
	t.Helper()
	l, err := tls.Listen("tcp", "127.0.0.1:0", server)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if c.(*tls.Conn).Handshake() == nil {
			c.Write([]byte("ok"))
		}
	}()
	c, err := tls.Dial("tcp", l.Addr().String(), client)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = io.ReadFull(c, make([]byte, 2))
	return err
}

func TestTLSAndMutualTLS(t *testing.T) {
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(t, b.Server(false), b.Client(false)); err != nil {
		t.Errorf("TLS with the bundle's CA: %v", err)
	}
	if err := handshake(t, b.Server(true), b.Client(true)); err != nil {
		t.Errorf("mutual TLS with the client certificate: %v", err)
	}
	if err := handshake(t, b.Server(true), b.Client(false)); err == nil {
		t.Error("mutual TLS accepted a client without a certificate")
	}
	other, _ := New()
	if err := handshake(t, b.Server(false), other.Client(false)); err == nil {
		t.Error("a client trusting another CA accepted the server")
	}
}

func TestCAPEMIsTheCA(t *testing.T) {
	b, _ := New()
	block, _ := pem.Decode(b.CAPEM)
	if block == nil {
		t.Fatal("CAPEM is not PEM")
	}
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil || !ca.IsCA {
		t.Fatalf("CAPEM: %v, IsCA=%v", err, ca != nil && ca.IsCA)
	}
	leaf, err := x509.ParseCertificate(b.server.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	for _, host := range []string{"127.0.0.1", "localhost", "::1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("server certificate for %s: %v", host, err)
		}
	}
}

func TestBundlesSharedThroughADirectoryInteroperate(t *testing.T) {
	dir := t.TempDir() + "/tls"
	first, err := LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	second, err := LoadOrCreate(dir) // another node process, later
	if err != nil {
		t.Fatal(err)
	}
	if string(first.CAPEM) != string(second.CAPEM) {
		t.Fatal("the second load made a new CA")
	}
	if err := handshake(t, first.Server(true), second.Client(true)); err != nil {
		t.Errorf("mutual TLS between bundles loaded from one directory: %v", err)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of an empty directory succeeded")
	}
}
