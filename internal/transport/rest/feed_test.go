package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
)

// protocol is one way the two stacks serve: HTTP/1.1, h2c, h2, HTTP/3.
type protocol struct {
	name string
	tr   transport.Transport
	cfg  transport.Config
}

func protocols(t *testing.T) []protocol {
	t.Helper()
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	tls := transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}
	h2 := tls
	h2.HTTP2 = true
	return []protocol{
		{"h1", Transport{}, transport.Config{}},
		{"h2c", Transport{}, transport.Config{HTTP2: true}},
		{"h2", Transport{}, h2},
		{"h3", H3{}, tls},
	}
}

// start serves h and dials it as p, with the codec and compression named.
func (p protocol) start(t *testing.T, server, client transport.Config, h transport.Handler) transport.Client {
	t.Helper()
	server.ServerTLS, server.ClientTLS, server.HTTP2 = p.cfg.ServerTLS, p.cfg.ClientTLS, p.cfg.HTTP2
	client.ServerTLS, client.ClientTLS, client.HTTP2 = p.cfg.ServerTLS, p.cfg.ClientTLS, p.cfg.HTTP2
	srv, err := p.tr.Listen(context.Background(), "127.0.0.1:0", server, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	c, err := p.tr.Dial(context.Background(), srv.Addr(), client)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// feedOf serves msgs (whatever the request asks) after pause each, and
// tells ended how the feed ended.
func feedOf(msgs [][]byte, pause time.Duration, ended chan<- error) transport.Handler {
	return transport.Handler{Feed: func(ctx context.Context, _ *transport.Request, send func([]byte) error) error {
		var err error
		for _, m := range msgs {
			time.Sleep(pause)
			if err = send(m); err != nil {
				break
			}
		}
		if ended != nil {
			ended <- err
		}
		return err
	}}
}

func feedRequest(codecName, compression string, messages int) *transport.Request {
	c, _ := codec.Lookup(codecName)
	z, _ := codec.LookupCompression(compression)
	return &transport.Request{Op: transport.OpFeed, Model: "text", Count: 1, Messages: messages, Codec: c, Compression: z}
}

// forms are the two wire forms' requests: events (json) and frames.
var forms = []struct{ codec, compression string }{{"json", "none"}, {"proto", "none"}, {"json", "gzip"}}

func collect(t *testing.T, c transport.Client, req *transport.Request) ([][]byte, error) {
	t.Helper()
	var got [][]byte
	err := transport.CallFeed(context.Background(), c, "rest", req, func(b []byte) error {
		got = append(got, b)
		return nil
	})
	return got, err
}

// Each write's deadline moves on, on every protocol: without it the
// server's WriteTimeout (twice a read timeout of 100 ms) cuts this feed
// of 500 ms on HTTP/1.1 and HTTP/2 (HTTP/3 has none to cut it).
func TestAFeedOutlastsTheWriteTimeout(t *testing.T) {
	msgs := slicesOf(10, []byte("0123456789"))
	for i, p := range protocols(t) {
		f := forms[i%len(forms)]
		cfg := transport.Config{Codec: f.codec, Compression: f.compression}
		server := cfg
		server.Conns.ReadTimeout = 100 * time.Millisecond
		c := p.start(t, server, cfg, feedOf(msgs, 50*time.Millisecond, nil))
		got, err := collect(t, c, feedRequest(f.codec, f.compression, len(msgs)))
		if err != nil || !equalMessages(got, msgs) {
			t.Errorf("%s %s+%s: a feed of 500 ms under a WriteTimeout of 200 ms: %d messages, %v", p.name, f.codec, f.compression, len(got), err)
		}
	}
}

func slicesOf(n int, b []byte) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// Every response writer the stacks serve with takes a write deadline
// (feedWriter.write moves it on each message).
func TestEveryServedProtocolTakesAWriteDeadline(t *testing.T) {
	probe := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute))
		io.WriteString(w, errorOrOK(err))
	})
	for _, p := range protocols(t) {
		var (
			srv transport.Server
			err error
		)
		if p.name == "h3" {
			srv, err = listenH3(context.Background(), "127.0.0.1:0", p.cfg, probe)
		} else {
			srv, err = listen(context.Background(), "127.0.0.1:0", p.cfg, probe)
		}
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.tr.Dial(context.Background(), srv.Addr(), p.cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := get(t, httpOf(c), BaseURL(srv.Addr(), p.cfg)+"/", nil)
		if got != "ok" {
			t.Errorf("%s: SetWriteDeadline: %s", p.name, got)
		}
		c.Close()
		srv.Close()
	}
}

func errorOrOK(err error) string {
	if err != nil {
		return err.Error()
	}
	return "ok"
}

func httpOf(c transport.Client) *http.Client {
	if h3, ok := c.(*h3Client); ok {
		return h3.http
	}
	return c.(*client).http
}

// get fetches url with header and returns its status and body.
func get(t *testing.T, c *http.Client, url string, header http.Header) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return resp.Status + " " + string(b)
	}
	return string(b)
}

func TestAFeedsBadQueryIsRefusedNamingTheParameter(t *testing.T) {
	p := protocols(t)[0]
	c := p.start(t, transport.Config{}, transport.Config{}, feedOf(nil, 0, nil))
	base := c.(*client).base + "/v1/text/feed"
	cases := map[string]string{
		"?messages=3":               "400 Bad Request bad request: query parameter count=\"\"",
		"?count=-1&messages=3":      "count=\"-1\"",
		"?count=1":                  "query parameter messages=\"\": want the number of messages the feed carries, from 1 to 100000",
		"?count=1&messages=0":       "messages=\"0\"",
		"?count=1&messages=1e3":     "messages=\"1e3\"",
		"?count=1&messages=1000001": "messages=\"1000001\"",
	}
	for query, want := range cases {
		if got := get(t, c.(*client).http, base+query, nil); !strings.Contains(got, want) {
			t.Errorf("GET …/feed%s: %q, want it to say %q", query, got, want)
		}
	}
	gzipEvents := http.Header{"Accept": {eventStream}, headerAcceptMessageEncoding: {"gzip"}}
	if got := get(t, c.(*client).http, base+"?count=1&messages=1", gzipEvents); !strings.HasPrefix(got, "400") || !strings.Contains(got, "uncompressed") {
		t.Errorf("events asked for gzip messages: %q, want a 400 saying events are uncompressed", got)
	}
}

// A message over a limit ends the feed with too large, naming the limit:
// the server's refuses to send it (a 413 when it is the first, the end
// of the stream after), the client's to read it; the server's feed ends.
func TestAMessageOverALimitEndsTheFeedNamingIt(t *testing.T) {
	small, big := []byte(`{"a":1}`), bytes.Repeat([]byte("x"), 2000)
	for _, p := range protocols(t) {
		for _, f := range forms {
			for _, side := range []string{"server", "client"} {
				for _, msgs := range [][][]byte{{big}, {small, big, small}} {
					cfg := transport.Config{Codec: f.codec, Compression: f.compression}
					server, client := cfg, cfg
					if side == "server" {
						server.MaxBytes = 1000
					} else {
						client.MaxBytes = 1000
					}
					ended := make(chan error, 1)
					c := p.start(t, server, client, feedOf(msgs, 0, ended))
					got, err := collect(t, c, feedRequest(f.codec, f.compression, len(msgs)))
					name := p.name + " " + f.codec + "+" + f.compression + " " + side + "'s limit"
					if transport.CodeOf(err) != transport.CodeTooLarge || !strings.Contains(err.Error(), "limit of 1000 bytes") || len(got) != len(msgs)/2 {
						t.Errorf("%s, feed of %d: %d messages, %v; want %d and too large naming the limit", name, len(msgs), len(got), err, len(msgs)/2)
					}
					waitEnd(t, name, ended)
				}
			}
		}
	}
}

func waitEnd(t *testing.T, name string, ended <-chan error) {
	t.Helper()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: the server's feed went on 5 s after the call", name)
	}
}

// A reply that stops without its end is an error, not a short feed.
func TestAFeedCutShortIsUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") == eventStream {
			w.Header().Set("Content-Type", eventStream)
			io.WriteString(w, "data: {}\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/x-protobuf; framing=prefixed")
		w.Write(appendFrame(nil, flagMessage, []byte{8, 1}))
	}))
	defer srv.Close()
	c, err := Transport{}.Dial(context.Background(), srv.Listener.Addr().String(), transport.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, name := range []string{"json", "proto"} {
		got, err := collect(t, c, feedRequest(name, "none", 3))
		if transport.CodeOf(err) != transport.CodeUnavailable || !strings.Contains(err.Error(), "ended after 1 messages without its end") || len(got) != 1 {
			t.Errorf("%s: a reply cut after a message: %d messages, %v", name, len(got), err)
		}
	}
}

func TestAFeedIsNotCalledWithCall(t *testing.T) {
	c := &client{base: "http://127.0.0.1:1", maxBytes: 100, http: http.DefaultClient}
	_, err := c.Call(context.Background(), feedRequest("json", "none", 3))
	if transport.CodeOf(err) != transport.CodeBadRequest || !strings.Contains(err.Error(), "Feed") {
		t.Fatalf("Call of a feed: %v, want bad request naming Feed", err)
	}
}

// curl, a client that knows nothing of hopbench, reads a JSON feed as
// server-sent events: a data line of JSON each message, then the end.
func TestCurlReadsAFeedAsServerSentEvents(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	m, _ := payload.Lookup("user")
	var msgs [][]byte
	for i := range 5 {
		msg, _ := m.Message(2, payload.DefaultSeed+uint64(i))
		b, _ := codec.All()[0].Marshal(msg)
		msgs = append(msgs, b)
	}
	c := protocols(t)[0].start(t, transport.Config{}, transport.Config{}, feedOf(msgs, 0, nil))
	url := c.(*client).base + "/v1/user/feed?count=2&messages=5"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, curl, "-sSN", "-H", "Accept: text/event-stream", "-w", "%{content_type}", url).Output()
	if err != nil {
		t.Fatalf("curl: %v", err)
	}
	last := strings.LastIndex(string(out), "\n\n") // the last event's end; -w's content type follows
	if last < 0 {
		t.Fatalf("curl read no event:\n%s", out)
	}
	body, contentType := string(out[:last]), string(out[last+2:])
	events := strings.Split(body, "\n\n")
	if contentType != eventStream || len(events) != 6 {
		t.Fatalf("curl read %d events of %q, want 6 of %s:\n%s", len(events), contentType, eventStream, out)
	}
	for i, ev := range events[:5] {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || !json.Valid([]byte(data)) || data != string(msgs[i]) {
			t.Errorf("event %d is %q, want a data line of message %d's JSON", i, ev, i)
		}
	}
	if events[5] != "event: end\ndata: "+strconv.Itoa(5) {
		t.Errorf("the last event is %q, want the end of 5 messages", events[5])
	}
}
