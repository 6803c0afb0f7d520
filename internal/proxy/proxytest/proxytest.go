// Package proxytest holds what tests that run real proxies share: the
// skip when they are not installed, and the check that an inbound
// sidecar refuses a client without a certificate.
package proxytest

import (
	"crypto/tls"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/proxy"
)

// Need skips a test that runs real proxies under -short, or where a
// known kind is not installed (scripts/setup.sh proxies; make test
// installs them).
func Need(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real HAProxy and nginx: make test runs it")
	}
	for _, name := range proxy.Kinds() {
		k, _ := proxy.Lookup(name)
		if err := proxy.Installed(k); err != nil {
			t.Skip(err)
		}
	}
}

// RefusesCertless fails t if the inbound sidecar at addr serves a client
// that trusts its CA (client) but presents no certificate: a refusal is a
// failed handshake, a connection closed unanswered (HAProxy, nginx's
// stream), or an error status (nginx's http answers 400). It returns the
// answer's first line.
func RefusesCertless(t testing.TB, addr string, client *tls.Config) string {
	t.Helper()
	c, err := tls.Dial("tcp", addr, client)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	io.WriteString(c, "POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	got, _ := io.ReadAll(c)
	first, _, _ := strings.Cut(string(got), "\r\n")
	if strings.HasPrefix(first, "HTTP/1.1 2") || strings.Contains(string(got), "hello") {
		t.Fatalf("a client without a certificate was answered %q by the inbound sidecar at %s", got, addr)
	}
	return first
}
