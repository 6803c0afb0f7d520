package rest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
)

func echoHandler(_ context.Context, req *transport.Request) ([]byte, error) { return req.Body, nil }

func listen(t *testing.T, limits transport.ConnLimits) (transport.Server, transport.Client) {
	t.Helper()
	tr, _ := transport.Lookup("rest")
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{Conns: limits}, transport.Handler{Bytes: echoHandler})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cl, err := tr.Dial(context.Background(), srv.Addr(), transport.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return srv, cl
}

func call(cl transport.Client) error {
	c, _ := codec.Lookup("json")
	none, _ := codec.LookupCompression("none")
	_, err := cl.Call(context.Background(), &transport.Request{Op: transport.OpEcho, Model: "text", Codec: c, Compression: none, Body: []byte(`{"text":"hi"}`)})
	return err
}

// hold opens n connections to addr, closed when the test ends.
func hold(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("after %d connections: %v", len(held), err)
		}
		held = append(held, c)
	}
	return held
}

// Idle connections and a request whose body never finishes are closed
// after their timeouts, 5 000 of them, while the node keeps serving.
func TestIdleAndSlowConnectionsAreClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("holds 5 000 connections for a few seconds")
	}
	srv, cl := listen(t, transport.ConnLimits{ReadTimeout: time.Second, IdleTimeout: time.Second, MaxConns: 6000})
	held := hold(t, srv.Addr(), 5000)
	slow := held[0] // headers, then a body that stops after a byte
	io.WriteString(slow, "POST /v1/text/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	// Each connection's end is its close by the node: read to it, with a
	// deadline well past the timeouts.
	deadline := time.Now().Add(10 * time.Second)
	open := 0
	for _, c := range held {
		c.SetReadDeadline(deadline)
		if _, err := io.Copy(io.Discard, c); errors.Is(err, os.ErrDeadlineExceeded) {
			open++
		}
	}
	if open > 0 {
		t.Errorf("%d of 5000 connections still open 10 s after 1 s timeouts", open)
	}
	if err := call(cl); err != nil {
		t.Fatalf("the node stopped serving: %v", err)
	}
}

// echoOn makes an echo call over c, a raw connection, and reads the
// reply's status line: a reply means the node accepted the connection.
func echoOn(t *testing.T, c net.Conn) {
	t.Helper()
	body := `{"text":"hi"}`
	fmt.Fprintf(c, "POST /v1/text/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("an echo on a held connection: %q, %v", line, err)
	}
}

// Past its connection limit a node answers 503, naming it, and closes.
func TestConnectionsPastTheLimitAreRefused(t *testing.T) {
	srv, _ := listen(t, transport.ConnLimits{MaxConns: 3})
	held := hold(t, srv.Addr(), 3)
	for _, c := range held {
		echoOn(t, c) // accepted, and counted
	}
	c, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(2 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	if !strings.HasPrefix(line, "HTTP/1.1 503") {
		t.Errorf("a fourth connection got %q, want a 503", line)
	}
	// The node counts a connection out before it closes it: its close,
	// read as the end of the stream, says there is room for another.
	held[0].(*net.TCPConn).CloseWrite()
	held[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, held[0]); err != nil {
		t.Fatalf("the node did not close a connection its client closed: %v", err)
	}
	tr, _ := transport.Lookup("rest")
	cl, err := tr.Dial(context.Background(), srv.Addr(), transport.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := call(cl); err != nil {
		t.Errorf("a connection after one closed: %v", err)
	}
}
