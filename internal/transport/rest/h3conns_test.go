package rest_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/transport"
)

// h3Node serves rest-h3 with limits, and a client config trusting it.
func h3Node(t *testing.T, limits transport.ConnLimits) (transport.Server, transport.Config) {
	t.Helper()
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := transport.Lookup("rest-h3")
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{ServerTLS: b.Server(false), Conns: limits}, transport.Handler{Bytes: echoHandler})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, transport.Config{ClientTLS: b.Client(false)}
}

// rest-h3 bounds its connections as the TCP stacks do: 300 QUIC
// connections under --max-conns 100 were all served.
func TestH3RefusesConnectionsPastItsLimit(t *testing.T) {
	srv, ccfg := h3Node(t, transport.ConnLimits{MaxConns: 2})
	tr, _ := transport.Lookup("rest-h3")
	var failed int
	for range 4 { // each client is a QUIC connection of its own, kept open
		cl, err := tr.Dial(context.Background(), srv.Addr(), ccfg)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		if call(cl) != nil {
			failed++
		}
	}
	if failed != 2 {
		t.Errorf("%d of 4 connections refused under a limit of 2, want 2", failed)
	}
}

// A request's body has the read timeout to arrive on rest-h3 as on the
// TCP stacks: a body trickled a byte every 2 s stayed open 75 s against
// a 6 s limit.
func TestH3GivesABodyItsReadTimeout(t *testing.T) {
	srv, ccfg := h3Node(t, transport.ConnLimits{ReadTimeout: 300 * time.Millisecond})
	rt := &http3.Transport{TLSClientConfig: ccfg.ClientTLS}
	defer rt.Close()
	body, w := io.Pipe()
	defer w.Close()
	go w.Write([]byte(`{"te`)) // then nothing more
	req, _ := http.NewRequest(http.MethodPost, "https://"+srv.Addr()+"/v1/text/echo", body)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = 100
	done := make(chan error, 1)
	began := time.Now()
	go func() {
		resp, err := (&http.Client{Transport: rt}).Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				err = io.ErrUnexpectedEOF // a stalled body answered 200: not expected
			}
		}
		done <- err
	}()
	select {
	case <-done:
		if took := time.Since(began); took > 5*time.Second {
			t.Errorf("a stalled body ended after %v, want about its 300ms read timeout", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a stalled body was still open after 10s against a 300ms read timeout")
	}
}
