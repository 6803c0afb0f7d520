package advise

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
)

// feedRun is one run of op (echo or feed:N) of user×3 through direct
// whose calls all took last (to the last message) and, for a feed, whose
// first messages all came after first, recorded as hopbench records it.
func feedRun(t *testing.T, stack, op, load string, last, first time.Duration) results.Record {
	t.Helper()
	r := results.Record{Case: strings.Join([]string{stack, "direct", op, "user×3", load}, " "), Stack: stack, Topology: "direct", Op: op,
		Model: "user", Count: 3, Load: load, Outcome: results.OutcomeOK}
	hist := func(d time.Duration) (string, stats.Summary) {
		h := stats.NewHistogram()
		for range 100 {
			stats.Record(h, d)
		}
		enc, err := stats.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		return enc, stats.Summarize(h)
	}
	var s stats.Summary
	r.Histogram, s = hist(last)
	r.Requests, r.RPS, r.P50Us, r.P99Us = 1000, 500, s.P50Us, s.P99Us
	if strings.HasPrefix(op, "feed:") {
		var fs stats.Summary
		r.FirstMessageHistogram, fs = hist(first)
		r.FirstMessage, r.MessagesPerS = &fs, 20*r.RPS
	}
	return r
}

// feeds are feed:100 runs of grpc (slower to its last message, quicker
// to its first) and connect, beside runs that answer other questions:
// rest's echo, grpc's feed:20 and amqp's echo.
func feeds(t *testing.T) []results.Record {
	return []results.Record{
		feedRun(t, "grpc", "feed:100", "closed:1", 3*time.Millisecond, 500*time.Microsecond),
		feedRun(t, "connect", "feed:100", "closed:1", 2*time.Millisecond, 800*time.Microsecond),
		feedRun(t, "rest", "echo", "closed:1", time.Millisecond, 0),
		feedRun(t, "grpc", "feed:20", "closed:1", 100*time.Microsecond, 50*time.Microsecond),
		feedRun(t, "amqp", "echo", "closed:1", time.Millisecond, 0),
	}
}

// valueAt is what a record's histogram says at percentile p.
func valueAt(t *testing.T, enc string, p float64) float64 {
	t.Helper()
	h, err := stats.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	return float64(h.ValueAtQuantile(p))
}

func TestAFeedIsAdvisedFromTheRunsOfThatFeed(t *testing.T) {
	recs := feeds(t)
	a := advise(t, Requirements{Model: "user", Count: 3, Feed: 100}, recs)
	if names := []string{a.Ranked[0].Name, a.Ranked[len(a.Ranked)-1].Name}; len(a.Ranked) != 2 || !slices.Equal(names, []string{"connect", "grpc"}) {
		t.Fatalf("ranked %+v, want connect (quicker to its last message) then grpc, from their feed:100 runs only", a.Ranked)
	}
	if !strings.Contains(a.Basis, "feed:100") {
		t.Errorf("basis %q names no feed", a.Basis)
	}
	for i, s := range a.Ranked {
		r := recs[1-i] // connect's, then grpc's
		if s.LatencyUs != valueAt(t, r.Histogram, 99) || s.FirstMessageUs != valueAt(t, r.FirstMessageHistogram, 99) {
			t.Errorf("%s: latency %v, first message %v; its feed:100 record says %v and %v", s.Name, s.LatencyUs, s.FirstMessageUs,
				valueAt(t, r.Histogram, 99), valueAt(t, r.FirstMessageHistogram, 99))
		}
		if !s.Fits || !slices.ContainsFunc(s.Evidence, func(e string) bool { return strings.HasPrefix(e, "first message p99 ") }) {
			t.Errorf("%s: fits %v, evidence %q: want its first message cited", s.Name, s.Fits, s.Evidence)
		}
	}
}

func TestAStackWithoutFeedsIsListedAsUnableWithWhy(t *testing.T) {
	a := advise(t, Requirements{Model: "user", Count: 3, Feed: 100}, feeds(t))
	why := transport.FeedRefusal("amqp")
	if why == nil {
		t.Fatal("amqp carries feeds: this test needs a stack that does not")
	}
	feeding := slices.ContainsFunc(a.Cannot, func(c string) bool { return strings.HasPrefix(c, "grpc:") || strings.HasPrefix(c, "connect:") })
	if !slices.Contains(a.Cannot, "amqp: "+why.Error()) || feeding || slices.ContainsFunc(a.Ranked, func(s Stack) bool { return s.Name == "amqp" }) || a.NeedsMeasurement() {
		t.Errorf("cannot %q, ranked %+v; want amqp listed as unable, not ranked nor to be measured", a.Cannot, a.Ranked)
	}
	var out bytes.Buffer
	if err := a.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Cannot: amqp: amqp replies with one message a call") || strings.Contains(out.String(), "Missing:") {
		t.Errorf("advice:\n%s", out.String())
	}
	// Asked for only stacks without feeds, advise says so.
	b := advise(t, Requirements{Model: "user", Count: 3, Feed: 100, Stacks: []string{"amqp", "nats"}}, feeds(t))
	if len(b.Ranked) != 0 || len(b.Cannot) != 2 || len(b.Missing) != 1 || !strings.Contains(b.Missing[0], "none of the stacks asked (amqp, nats) carries feeds") {
		t.Errorf("ranked %+v, cannot %q, missing %q", b.Ranked, b.Cannot, b.Missing)
	}
}

func TestAnUnmetFirstMessageSLAIsStatedWithItsFigure(t *testing.T) {
	recs := feeds(t)
	a := advise(t, Requirements{Model: "user", Count: 3, Feed: 100, SLA: 5 * time.Millisecond, FirstMessageSLA: 600 * time.Microsecond}, recs)
	if len(a.Ranked) != 2 || a.Ranked[0].Name != "grpc" || !a.Ranked[0].Fits {
		t.Fatalf("ranked %+v: want grpc first, fitting (its first message within 600µs)", a.Ranked)
	}
	c := a.Ranked[1]
	want := "first message: p99 " + msStr(valueAt(t, recs[1].FirstMessageHistogram, 99)) + ", over the 600µs first_message_sla"
	if c.Fits || !slices.Equal(c.Unmet, []string{want}) {
		t.Errorf("connect: fits %v, unmet %q; want %q", c.Fits, c.Unmet, want)
	}
	// A percentile no summary keeps is read from the histogram; without
	// one, a summary's own figure answers.
	p95 := advise(t, Requirements{Model: "user", Count: 3, Feed: 100, Percentile: 95}, recs)
	if got, want := byName(p95)["connect"].FirstMessageUs, valueAt(t, recs[1].FirstMessageHistogram, 95); got != want {
		t.Errorf("first message at p95 %v, the histogram says %v", got, want)
	}
	recs[1].FirstMessageHistogram, recs[1].FirstMessage.P99Us = "", 1234
	if got := byName(advise(t, Requirements{Model: "user", Count: 3, Feed: 100}, recs))["connect"].FirstMessageUs; got != 1234 {
		t.Errorf("first message from the summary %v, want 1234", got)
	}
}

func TestWithoutAFeedFeedRunsAreIgnored(t *testing.T) {
	a := advise(t, Requirements{Model: "user", Count: 3}, feeds(t))
	names := slices.Sorted(func(yield func(string) bool) {
		for _, s := range a.Ranked {
			yield(s.Name)
		}
	})
	if !slices.Equal(names, []string{"amqp", "rest"}) || a.Cannot != nil || strings.Contains(a.Basis, "feed") {
		t.Errorf("ranked %+v, cannot %q, basis %q: want amqp's and rest's echo runs only", a.Ranked, a.Cannot, a.Basis)
	}
	for _, s := range a.Ranked {
		if s.FirstMessageUs != 0 || slices.ContainsFunc(s.Evidence, func(e string) bool { return strings.Contains(e, "first message") }) {
			t.Errorf("%s judged on a feed: %+v", s.Name, s)
		}
	}
}

func TestMissingFeedRunsAreNamedWithTheStacksThatCarryThem(t *testing.T) {
	a := advise(t, Requirements{Model: "user", Count: 3, Feed: 50}, feeds(t))
	if len(a.Ranked) != 0 || len(a.Missing) != 1 {
		t.Fatalf("ranked %+v, missing %q", a.Ranked, a.Missing)
	}
	m := a.Missing[0]
	for _, want := range []string{"no feed:50 run", "they measured feed:100 of user×3 through direct; feed:20 of user×3", `ops: ["feed:50"]`, strings.Join(transport.FeedingNames(), ", ")} {
		if !strings.Contains(m, want) {
			t.Errorf("missing %q does not say %q", m, want)
		}
	}
}

// A feed's first message at a rate is read from an open-loop rate run:
// closed loops and capacity searches keep none at a rate, and the command
// that measures it asks for the feed.
func TestAFeedsFirstMessageAtARateIsReadFromRateRuns(t *testing.T) {
	req := Requirements{Model: "user", Count: 3, Feed: 100, Rate: 400, FirstMessageSLA: time.Millisecond, Stacks: []string{"grpc", "connect"}}
	a := advise(t, req, feeds(t))
	cmd := "hopbench advise --model user --count 3 --rate 400 --feed 100 --first-message-sla 1ms --stacks connect,grpc --measure"
	if !a.NeedsMeasurement() || len(a.Missing) != 1 || !strings.HasPrefix(a.Missing[0], "time to the first message at 400 req/s was not measured") || !strings.HasSuffix(a.Missing[0], cmd) {
		t.Errorf("missing %q, want the time to the first message measured with %q", a.Missing, cmd)
	}
	rate := feedRun(t, "grpc", "feed:100", "rate:500", 4*time.Millisecond, 2*time.Millisecond)
	g := byName(advise(t, req, append(feeds(t), rate)))["grpc"]
	want := "first message at 400 req/s: p99 " + msStr(valueAt(t, rate.FirstMessageHistogram, 99)) + ", over the 1ms first_message_sla"
	if g.NotMeasured || !slices.Contains(g.Unmet, want) {
		t.Errorf("grpc: not measured %v, unmet %q; want %q", g.NotMeasured, g.Unmet, want)
	}
}

func TestAFeedsRequirementsAreChecked(t *testing.T) {
	for _, c := range []struct {
		req  Requirements
		want string
	}{
		{Requirements{Model: "user", Count: 1, Feed: -1}, "feed -1"},
		{Requirements{Model: "user", Count: 1, Feed: transport.MaxFeedMessages + 1}, "feed 100001"},
		{Requirements{Model: "user", Count: 1, FirstMessageSLA: time.Millisecond}, "first_message_sla"},
		{Requirements{Model: "user", Count: 1, Feed: 10, FirstMessageSLA: -time.Millisecond}, "first_message_sla cannot be negative"},
		{Requirements{Model: "user", Count: 1, Feed: 10, Topology: "tree:2"}, `topology "tree:2" fans out`},
	} {
		c.req.Defaults()
		if err := c.req.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %s", c.req, err, c.want)
		}
	}
}
