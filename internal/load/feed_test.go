package load_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all"
	"github.com/hopbench/hopbench/internal/wire"
)

// feeder is a transport of these tests only, standing in for the stacks
// that will carry feeds: its client's feed sleeps (on the test's clock)
// before each message as its address says, first=3ms&gap=4ms, and carries
// short fewer or long more messages than asked; nofeed=1 dials a client
// that calls no feeds. It serves nothing: the engine is what is tested.
type feeder struct{}

func init() { transport.Register(feeder{}) }

func (feeder) Name() string { return "feeder" }

func (feeder) Caps() transport.Caps {
	return transport.Caps{Codecs: []string{"proto"}, Feeds: true}
}

func (feeder) Listen(context.Context, string, transport.Config, transport.Handler) (transport.Server, error) {
	return nil, errors.New("feeder serves nothing")
}

func (feeder) Dial(_ context.Context, target string, _ transport.Config) (transport.Client, error) {
	q, err := url.ParseQuery(target)
	if err != nil {
		return nil, err
	}
	d := func(k string) time.Duration { v, _ := time.ParseDuration(q.Get(k)); return v }
	n := func(k string) int { v, _ := strconv.Atoi(q.Get(k)); return v }
	c := &feederClient{first: d("first"), gap: d("gap"), extra: n("long") - n("short")}
	if q.Get("nofeed") != "" {
		return unaryOnly{c}, nil
	}
	return c, nil
}

type feederClient struct {
	first, gap time.Duration
	extra      int // messages beyond those asked for (negative: short)
}

func (c *feederClient) Call(context.Context, *transport.Request) ([]byte, error) {
	return nil, transport.Errorf(transport.CodeBadRequest, "feeder carries feeds only")
}

func (c *feederClient) Feed(ctx context.Context, req *transport.Request, each func([]byte) error) error {
	m, err := payload.Lookup(req.Model)
	if err != nil {
		return err
	}
	for i := range req.Messages + c.extra {
		wait := c.gap
		if i == 0 {
			wait = c.first
		}
		time.Sleep(wait)
		msg, err := m.Message(req.Count, uint64(i))
		if err != nil {
			return err
		}
		b, err := req.Codec.Marshal(msg)
		if err != nil {
			return err
		}
		if err := each(b); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (c *feederClient) Close() error { return nil }

// unaryOnly is a client that calls no feeds.
type unaryOnly struct{ c *feederClient }

func (u unaryOnly) Call(ctx context.Context, req *transport.Request) ([]byte, error) {
	return u.c.Call(ctx, req)
}
func (u unaryOnly) Close() error { return nil }

func dialFeeder(t *testing.T, addr string, messages int) *load.Target {
	t.Helper()
	return dialFeederPer(t, addr, messages, false)
}

func dialFeederPer(t *testing.T, addr string, messages int, perRequest bool) *load.Target {
	t.Helper()
	st, err := transport.ParseStack("feeder")
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := load.DialTarget(context.Background(), load.TargetConfig{Stack: st, Addr: addr, Op: transport.OpFeed, Messages: messages,
		Model: "user", Count: 3, PerRequest: perRequest})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tgt.Close() })
	return tgt
}

// near says whether a histogram's value v (µs) is want within its
// resolution (3 significant digits).
func near(v int64, want time.Duration) bool {
	w := want.Microseconds()
	return v >= w && v <= w+w/500
}

// An open loop of 4-message feeds, each 15 ms long with its first message
// 3 ms after its send, at one every 10 ms on one worker: call k is sent
// 5k ms late, the worker kept busy by the service. Its time to first
// message counts from its intended send, as its latency does: 5k+3 ms,
// not the 3 ms a clock started at the send would say. The latency stays
// the time to the last message, 5k+15 ms.
func TestAFeedsFirstMessageCountsFromItsIntendedSend(t *testing.T) {
	virtual(t, func(t *testing.T) {
		tgt := dialFeeder(t, "first=3ms&gap=4ms", 4)
		cfg := load.Config{Kind: load.Rate, Rate: 100, Workers: 1, Duration: 100 * time.Millisecond}
		r, err := load.Run(t.Context(), cfg, tgt.NewCall)
		if err != nil {
			t.Fatal(err)
		}
		if r.Requests != 10 || r.Errors != 0 || r.FirstMessage == nil || r.FirstMessage.TotalCount() != 10 {
			t.Fatalf("%d requests, %d errors (%v), first messages %v; want 10 good feeds, each with its first message", r.Requests, r.Errors, r.ErrorsByClass, r.FirstMessage)
		}
		first, last, raw := r.FirstMessage, r.Latency, r.Uncorrected
		if !near(first.Min(), 3*time.Millisecond) || !near(first.Max(), 48*time.Millisecond) || !near(first.ValueAtQuantile(50), 23*time.Millisecond) {
			t.Errorf("first message min %dµs p50 %dµs max %dµs; want 3, 23 and 48 ms from the intended send", first.Min(), first.ValueAtQuantile(50), first.Max())
		}
		if !near(last.Min(), 15*time.Millisecond) || !near(last.Max(), 60*time.Millisecond) || !near(raw.Max(), 15*time.Millisecond) {
			t.Errorf("latency %d to %dµs (uncorrected max %dµs); want the last message's, 15 to 60 ms (15 from the send)", last.Min(), last.Max(), raw.Max())
		}
		f := r.Figures(wire.Totals{})
		if f.FirstMessage == nil || !near(f.FirstMessage.P50Us, 23*time.Millisecond) || !near(f.P50Us, 35*time.Millisecond) {
			t.Errorf("figures: p50 %dµs, first message %+v; want the last message's 35 ms as the headline and the first's 23 ms beside it", f.P50Us, f.FirstMessage)
		}
		if r.Messages != 40 || r.Elapsed != 150*time.Millisecond || f.MessagesPerS != 40/0.150 || r.MessagesPerS() != 4*r.RPS() {
			t.Errorf("%d messages in %v, %.1f messages/s at %.1f rps; want 40 in 150ms, 4 × rps", r.Messages, r.Elapsed, f.MessagesPerS, r.RPS())
		}
	})
}

// A feed of fewer messages than asked for, or more, is a bad reply: a
// protocol error, whose messages count for nothing; a whole one is good,
// on a pooled client or one dialled for it.
func TestAFeedShortOfItsMessagesIsABadReply(t *testing.T) {
	virtual(t, func(t *testing.T) {
		for addr, want := range map[string]string{
			"first=1ms&gap=1ms&short=1": "the feed carried 3 messages, want 4",
			"long=1":                    "the feed carried more than the 4 messages asked for",
		} {
			err := dialFeeder(t, addr, 4).NewCall()(t.Context())
			if err == nil || err.Error() != want || load.Classify(err) != load.ClassProtocol {
				t.Errorf("%s: %v (%v); want %q, a protocol error", addr, err, classOf(err), want)
			}
		}
		for _, per := range []bool{false, true} {
			if err := dialFeederPer(t, "first=1ms", 4, per).NewCall()(t.Context()); err != nil {
				t.Errorf("a whole feed, per request %v: %v", per, err)
			}
		}
		tgt := dialFeeder(t, "first=1ms&gap=1ms&short=1", 4)
		r, err := load.Run(t.Context(), load.Config{Kind: load.Closed, Clients: 1, Requests: 5}, tgt.NewCall)
		if err != nil {
			t.Fatal(err)
		}
		if r.ErrorsByClass["protocol"] != 5 || r.Messages != 0 || r.MessagesPerS() != 0 {
			t.Errorf("errors %v, %d messages (%.0f/s); want 5 protocol errors and no message counted", r.ErrorsByClass, r.Messages, r.MessagesPerS())
		}
		// Their first messages came, and count as their latencies do.
		if r.FirstMessage == nil || r.FirstMessage.TotalCount() != 5 || !near(r.FirstMessage.Max(), time.Millisecond) {
			t.Errorf("first messages %v; want the 5 that came, at 1 ms", r.FirstMessage)
		}
	})
}

func classOf(err error) string {
	if err == nil {
		return "none"
	}
	return load.Classify(err).String()
}

// A feed is refused before any load where it cannot be called: on a
// stack that carries none, or a client that calls none, naming the stack.
func TestAFeedIsRefusedWhereNoneIsCarried(t *testing.T) {
	st, _ := transport.ParseStack("feeder")
	cfg := load.TargetConfig{Stack: st, Addr: "nofeed=1", Op: transport.OpFeed, Messages: 4, Model: "user", Count: 3}
	if _, err := load.DialTarget(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "feeder's client calls no feeds") {
		t.Errorf("a client without feeds: %v", err)
	}
	cfg.Stack, _ = transport.ParseStack("graphql")
	if _, err := load.DialTarget(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "graphql") {
		t.Errorf("graphql: %v", err)
	}
	cfg.Stack, cfg.Addr, cfg.Messages = st, "", 0
	if _, err := load.DialTarget(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "feed of 0 messages") {
		t.Errorf("a feed of no messages: %v", err)
	}
}

// Shares of a feed's load merge their first messages and add their
// messages; a unary run's figures carry neither, and a run whose calls
// failed loses both.
func TestFeedFiguresMergeAndAreWithheld(t *testing.T) {
	share := func(firstMs int64, messages int64) *load.Result {
		lat, first := stats.NewHistogram(), stats.NewHistogram()
		stats.Record(lat, 50*time.Millisecond)
		stats.Record(first, time.Duration(firstMs)*time.Millisecond)
		return &load.Result{Requests: 1, Elapsed: time.Second, Latency: lat, FirstMessage: first, Messages: messages, ErrorsByClass: map[string]int64{}}
	}
	m, err := load.Merge([]*load.Result{share(2, 100), share(8, 100)})
	if err != nil {
		t.Fatal(err)
	}
	if m.Messages != 200 || m.FirstMessage.TotalCount() != 2 || !near(m.FirstMessage.Min(), 2*time.Millisecond) || !near(m.FirstMessage.Max(), 8*time.Millisecond) || m.MessagesPerS() != 200 {
		t.Errorf("merged: %d messages (%.0f/s), first messages %d from %dµs to %dµs", m.Messages, m.MessagesPerS(), m.FirstMessage.TotalCount(), m.FirstMessage.Min(), m.FirstMessage.Max())
	}
	f := m.Figures(wire.Totals{})
	feed, _ := json.Marshal(f)
	f.Withhold()
	withheld, _ := json.Marshal(f)
	unary := share(1, 0)
	unary.FirstMessage = nil
	plain, _ := json.Marshal(unary.Figures(wire.Totals{}))
	for _, c := range []struct {
		name string
		json []byte
		has  bool
	}{{"feed", feed, true}, {"withheld", withheld, false}, {"unary", plain, false}} {
		for _, k := range []string{`"first_message"`, `"messages_per_s"`} {
			if strings.Contains(string(c.json), k) != c.has {
				t.Errorf("%s: %s present %v, want %v: %s", c.name, k, !c.has, c.has, c.json)
			}
		}
	}
}

// Feeds through a real node, on a pooled client and on one dialled per
// call where the stack takes them: every message of every feed is read
// and counted, and each feed has its first message.
func TestFeedsThroughANodeAreRecorded(t *testing.T) {
	for _, stack := range []string{"grpc", "connect", "ws+proto"} {
		st, err := transport.ParseStack(stack)
		if err != nil {
			t.Fatal(err)
		}
		n, err := node.Start(context.Background(), node.Config{Stack: st})
		if err != nil {
			t.Fatal(err)
		}
		for _, per := range []bool{false, true} {
			if per && transport.PerRequestRefusal(st.Transport) != nil {
				continue
			}
			tgt, err := load.DialTarget(context.Background(), load.TargetConfig{Stack: st, Addr: n.Addr(), Op: transport.OpFeed, Messages: 20,
				Model: "user", Count: 3, PerRequest: per})
			if err != nil {
				t.Fatal(err)
			}
			r, err := load.Run(context.Background(), load.Config{Kind: load.Closed, Clients: 2, Requests: 30}, tgt.NewCall)
			tgt.Close()
			if err != nil {
				t.Fatal(err)
			}
			if r.Errors != r.ErrorsByClass["over_sla"] || r.Messages != 20*30 || r.FirstMessage == nil || r.FirstMessage.TotalCount() != 30 {
				t.Errorf("%s per-request %v: %d calls, errors %v, %d messages, first messages %v; want 30 feeds of 20", stack, per, r.Requests, r.ErrorsByClass, r.Messages, r.FirstMessage)
			} else if r.FirstMessage.Max() > r.Latency.Max() {
				t.Errorf("%s: a first message later (%dµs) than any feed's last (%dµs)", stack, r.FirstMessage.Max(), r.Latency.Max())
			}
		}
		n.Close()
	}
}
