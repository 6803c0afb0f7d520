// Package crosscheck is a second load generator that shares no client code
// with hopbench's own: a minimal HTTP/1.1 client over a raw net.Conn, with
// its own pacing, that calls a REST node with JSON bodies at a fixed rate.
// Measuring the same server and task with both, at the same rate, checks
// that hopbench's client path (net/http, its load engine) adds nothing
// significant to what it reports, as Bolanowski et al. checked their
// software generator against a hardware one.
//
// It is deliberately small: one connection, one request in flight, no
// chunked bodies, no TLS. A reply that needs more is an error.
package crosscheck

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
)

// Config is one check: what to ask of which node, and how fast.
type Config struct {
	Addr  string
	Op    transport.Op
	Model string
	Count int
	Seed  uint64
	// Rate is requests per second, evenly spaced; each request's latency
	// runs from when it was due (or, when the client was on time and slept,
	// from when it woke), so a slow reply delays the next and is charged
	// for it.
	Rate     float64
	Warmup   time.Duration
	Duration time.Duration
	SLA      time.Duration
	Timeout  time.Duration
	// Dial opens the connection (default net.Dialer); a byte-counting
	// dialer counts what it carries.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// AtStart is called as the measured window opens.
	AtStart func()
	// now is the clock (tests inject one).
	now func() time.Time
}

// MaxReplyBytes bounds a reply's body.
const MaxReplyBytes = 256 << 20

// Run drives the node for cfg's warm-up and duration and returns what it
// measured, in hopbench's result type so that records of both generators
// read alike. Requests still due when ctx ends are not made.
func Run(ctx context.Context, cfg Config) (*load.Result, error) {
	if cfg.Rate <= 0 || cfg.Duration <= 0 {
		return nil, fmt.Errorf("crosscheck: want a positive rate and duration (got %v/s for %v)", cfg.Rate, cfg.Duration)
	}
	if cfg.SLA <= 0 {
		cfg.SLA = time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	c, err := newCaller(cfg)
	if err != nil {
		return nil, err
	}
	defer c.close()
	return c.run(ctx)
}

// caller is the check in progress.
type caller struct {
	cfg     Config
	request []byte // the whole HTTP request, written as is
	cc      codec.Codec
	model   payload.Model
	conn    net.Conn
	br      *bufio.Reader
	body    []byte
}

func newCaller(cfg Config) (*caller, error) {
	m, err := payload.Lookup(cfg.Model)
	if err != nil {
		return nil, err
	}
	cc, err := codec.Lookup("json")
	if err != nil {
		return nil, err
	}
	c := &caller{cfg: cfg, cc: cc, model: m}
	c.request, err = c.encodeRequest()
	return c, err
}

// encodeRequest writes the request line, headers and body the REST stack
// serves: GET /v1/{model}?count=N, POST /v1/{model}, POST /v1/{model}/echo.
func (c *caller) encodeRequest() ([]byte, error) {
	cfg := c.cfg
	var body []byte
	if cfg.Op != transport.OpGet {
		msg, err := c.model.Message(cfg.Count, cfg.Seed)
		if err != nil {
			return nil, err
		}
		if body, err = c.cc.Marshal(msg); err != nil {
			return nil, fmt.Errorf("crosscheck: encoding the request: %w", err)
		}
	}
	var b bytes.Buffer
	switch cfg.Op {
	case transport.OpGet:
		fmt.Fprintf(&b, "GET /v1/%s?count=%d HTTP/1.1\r\n", cfg.Model, cfg.Count)
	case transport.OpPost:
		fmt.Fprintf(&b, "POST /v1/%s HTTP/1.1\r\n", cfg.Model)
	case transport.OpEcho:
		fmt.Fprintf(&b, "POST /v1/%s/echo HTTP/1.1\r\n", cfg.Model)
	default:
		return nil, fmt.Errorf("crosscheck: op %q: want get, post or echo", cfg.Op)
	}
	fmt.Fprintf(&b, "Host: %s\r\nAccept: application/json\r\n", cfg.Addr)
	if body != nil {
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes(), nil
}

func (c *caller) run(ctx context.Context) (*load.Result, error) {
	cfg := c.cfg
	period := time.Duration(float64(time.Second) / cfg.Rate)
	res := &load.Result{ErrorsByClass: map[string]int64{}, Latency: stats.NewHistogram(), Uncorrected: stats.NewHistogram()}
	t0 := cfg.now()
	start := t0.Add(cfg.Warmup)
	end := start.Add(cfg.Duration)
	opened := false
	var last time.Time
	for i := 0; ; i++ {
		due := t0.Add(time.Duration(i) * period)
		if !due.Before(end) {
			break
		}
		slept := due.After(cfg.now())
		if !sleepUntil(ctx, due) {
			break
		}
		if slept {
			// On time, it slept: a timer wakes up to a millisecond late,
			// which is this generator's lateness, not the service's.
			due = cfg.now()
		}
		if !opened && !due.Before(start) {
			opened = true
			if cfg.AtStart != nil {
				cfg.AtStart()
			}
		}
		sent := cfg.now()
		err := c.call(ctx, due.Add(cfg.Timeout))
		done := cfg.now()
		if ctx.Err() != nil {
			break
		}
		if due.Before(start) {
			continue // warm-up
		}
		last = done
		record(res, due, sent, done, err, cfg.SLA)
	}
	if !last.IsZero() {
		res.Elapsed = last.Sub(start)
	}
	return res, nil
}

// record files one request as hopbench's engine would: latency from its
// due time, an error by class, a reply later than the SLA an error too.
func record(res *load.Result, due, sent, done time.Time, err error, sla time.Duration) {
	res.Requests++
	class := ""
	switch {
	case err != nil:
		class = classify(err)
	case done.Sub(due) > sla:
		class = "over_sla"
	default:
		res.Good++
	}
	if class != "" {
		res.Errors++
		res.ErrorsByClass[class]++
	}
	if class == "refused" {
		return
	}
	stats.Record(res.Latency, done.Sub(due))
	stats.Record(res.Uncorrected, done.Sub(sent))
}

// call makes one request on the open connection, dialling one first if
// there is none, and reads the whole reply by deadline; ending ctx ends
// the call at once.
func (c *caller) call(ctx context.Context, deadline time.Time) error {
	if c.conn == nil {
		dial := c.cfg.Dial
		if dial == nil {
			dial = (&net.Dialer{}).DialContext
		}
		dctx, cancel := context.WithDeadline(ctx, deadline)
		conn, err := dial(dctx, "tcp", c.cfg.Addr)
		cancel()
		if err != nil {
			return err
		}
		c.conn, c.br = conn, bufio.NewReaderSize(conn, 64<<10)
	}
	conn := c.conn
	if err := conn.SetDeadline(deadline); err != nil {
		c.close()
		return err
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := conn.Write(c.request); err != nil {
		c.close()
		return err
	}
	closing, err := c.readReply()
	if err != nil || closing {
		c.close()
	}
	if err != nil {
		return err
	}
	return c.check()
}

// errProtocol is a reply this client cannot read as HTTP/1.1 with a
// Content-Length body.
var errProtocol = errors.New("crosscheck: protocol")

// errStatus is a reply with a status other than 200.
type errStatus int

func (e errStatus) Error() string { return fmt.Sprintf("crosscheck: HTTP status %d", int(e)) }

// maxHeaderLine bounds a status or header line (the reader's buffer).
const maxHeaderLine = 64 << 10

// line reads one line of at most maxHeaderLine bytes.
func (c *caller) line() (string, error) {
	b, err := c.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", fmt.Errorf("%w: a header line over %d bytes", errProtocol, maxHeaderLine)
	}
	return string(b), err
}

// readReply reads a status line, headers and a Content-Length body, and
// says whether the server is closing the connection.
func (c *caller) readReply() (closing bool, err error) {
	line, err := c.line()
	if err != nil {
		return false, err
	}
	proto, rest, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil {
		return false, fmt.Errorf("%w: status line %q", errProtocol, line)
	}
	length := -1
	for {
		h, err := c.line()
		if err != nil {
			return false, err
		}
		h = strings.TrimRight(h, "\r\n")
		if h == "" {
			break
		}
		name, value, _ := strings.Cut(h, ":")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			if length, err = strconv.Atoi(strings.TrimSpace(value)); err != nil || length < 0 || length > MaxReplyBytes {
				return false, fmt.Errorf("%w: content-length %q (at most %d)", errProtocol, value, MaxReplyBytes)
			}
		case "transfer-encoding":
			return false, fmt.Errorf("%w: transfer-encoding %q is not read here", errProtocol, value)
		case "connection":
			closing = strings.EqualFold(strings.TrimSpace(value), "close")
		}
	}
	if length < 0 {
		return false, fmt.Errorf("%w: a reply without content-length", errProtocol)
	}
	if cap(c.body) < length {
		c.body = make([]byte, length)
	}
	c.body = c.body[:length]
	if _, err := io.ReadFull(c.br, c.body); err != nil {
		return false, err
	}
	if status != 200 {
		return closing, errStatus(status)
	}
	return closing, nil
}

// check decodes the reply, the task hopbench's client does with every
// reply. It decodes with hopbench's JSON codec on purpose: the codec is the
// task, not the client; what this check isolates is the client path
// around it (HTTP, pacing, recording).
func (c *caller) check() error {
	reply := transport.NewReply(c.cfg.Op, c.model)
	if err := c.cc.Unmarshal(c.body, reply); err != nil {
		return fmt.Errorf("%w: reading the reply: %v", errProtocol, err)
	}
	return nil
}

func (c *caller) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.br = nil, nil
	}
}

func classify(err error) string {
	var st errStatus
	var ne net.Error
	switch {
	case errors.As(err, &st):
		return "application"
	case errors.Is(err, errProtocol):
		return "protocol"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return "protocol"
}

// sleepUntil is written again here, not shared with the load engine's:
// pacing is the generator's own, and the check's point is to share none.
func sleepUntil(ctx context.Context, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
