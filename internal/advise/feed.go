package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
)

// Op is the operation whose runs answer r: echo, or feed:N when the
// service streams its replies (Feed).
func (r Requirements) Op() string {
	if r.OneWay {
		return string(transport.OpPost)
	}
	if r.Feed > 0 {
		return fmt.Sprintf("%s:%d", transport.OpFeed, r.Feed)
	}
	return string(transport.OpEcho)
}

// validateFeed checks the feed's fields and what a feed cannot run with.
func (r *Requirements) validateFeed() error {
	if r.Feed < 0 || r.Feed > transport.MaxFeedMessages {
		return fmt.Errorf("feed %d: want the messages a reply carries, from 1 to %d (0 for one reply a call)", r.Feed, transport.MaxFeedMessages)
	}
	if r.FirstMessageSLA < 0 {
		return fmt.Errorf("first_message_sla cannot be negative")
	}
	if r.FirstMessageSLA > 0 && r.Feed == 0 {
		return fmt.Errorf("first_message_sla: the time to a feed's first message; give feed (the messages a reply carries) too")
	}
	if r.OneWay && (r.Feed > 0 || r.Topology != "direct") {
		return fmt.Errorf("oneway: a message goes from publisher to consumers, no reply and no chain: leave out feed, and topology direct")
	}
	if t, err := topology.Parse(r.Topology); err == nil && r.Feed > 0 && !t.Linear() {
		return fmt.Errorf("topology %q fans out: a feed is relayed through one downstream a node, so ask for direct or chain:N", r.Topology)
	}
	return nil
}

// feedWords says which feeds are asked: "" for one reply a call.
func (r Requirements) feedWords() string {
	if r.OneWay {
		return ", one way (published, consumed later; latency end to end)"
	}
	if r.Feed == 0 {
		return ""
	}
	return fmt.Sprintf(", in feeds of %d messages (%s)", r.Feed, r.Op())
}

// sameKind says whether op is of the kind of operation req asks: echo,
// a feed of any length, or for one-way messages a post or an echo.
func sameKind(req Requirements, op string) bool {
	if req.OneWay { // a one-way message is the body of a post or an echo
		return op == string(transport.OpPost) || op == string(transport.OpEcho)
	}
	if req.Feed > 0 {
		return strings.HasPrefix(op, string(transport.OpFeed)+":")
	}
	return op == string(transport.OpEcho)
}

// missingFeed says that no run of the feed asked stands, what feeds the
// records hold instead (have), and where to measure it: the stacks that
// carry feeds.
func missingFeed(req Requirements, have []string) string {
	on := transport.FeedingNames()
	if len(req.Stacks) > 0 {
		if on = Feeding(req.Stacks); len(on) == 0 {
			return fmt.Sprintf("none of the stacks asked (%s) carries feeds (server streaming): ask for some of %s", strings.Join(req.Stacks, ", "), strings.Join(transport.FeedingNames(), ", "))
		}
	}
	msg := fmt.Sprintf("no %s run (server streaming, %d messages a reply) of %s through %s whose figures stand in these results", req.Op(), req.Feed, req.Model, req.Topology)
	if len(have) > 0 {
		msg += " (they measured " + strings.Join(have, "; ") + ")"
	}
	return msg + fmt.Sprintf(": measure it with --measure (on the stacks that carry feeds: %s), or run a spec with ops: [%q] and that payload and topology and pass its results", strings.Join(on, ", "), req.Op())
}

// firstAtRate says whether a feed's first message is asked within an SLA
// at a rate, which only open-loop rate runs record.
func (r Requirements) firstAtRate() bool { return r.Feed > 0 && r.FirstMessageSLA > 0 && r.Rate > 0 }

// toLast says, for a feed, what its latency is.
func (r Requirements) toLast() string {
	if r.Feed > 0 {
		return " (to the last message)"
	}
	return ""
}

// unmeasuredWords names what a stack marked NotMeasured lacks at the rate.
func (r Requirements) unmeasuredWords() string {
	var what []string
	if r.atRateAsked() {
		what = append(what, "latency")
	}
	if r.firstAtRate() {
		what = append(what, "time to the first message")
	}
	return strings.Join(what, " or ")
}

// measureWords says what --measure runs to measure it.
func (r Requirements) measureWords() string {
	var what []string
	if r.atRateAsked() {
		what = append(what, "a capacity search per stack")
	}
	if r.firstAtRate() {
		what = append(what, fmt.Sprintf("a run at %.0f req/s per stack", r.Rate))
	}
	return strings.Join(what, " and ")
}

// cannot names the stacks considered that carry no feed, with why: the
// stacks asked for, or else those in the records. Nil without Feed.
func cannot(req Requirements, recs []results.Record) []string {
	if req.Feed == 0 {
		return nil
	}
	names := req.Stacks
	if len(names) == 0 {
		seen := map[string]bool{}
		for _, r := range recs {
			if r.Stack != "" && !seen[r.Stack] {
				seen[r.Stack] = true
				names = append(names, r.Stack)
			}
		}
		slices.Sort(names)
	}
	var out []string
	for _, name := range names {
		if err := feedRefusal(name); err != nil {
			out = append(out, fmt.Sprintf("%s: %v", name, err))
		}
	}
	return out
}

// feedRefusal is why the named stack carries no feed; nil when it does.
func feedRefusal(stack string) error {
	st, err := transport.ParseStack(stack)
	if err != nil {
		return err
	}
	return transport.FeedRefusal(st.Transport)
}

// Feeding keeps the stacks of names that carry feeds.
func Feeding(names []string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(s string) bool { return feedRefusal(s) != nil })
}

// firstMessage judges a feed's time to its first message: from the case
// judged (c), or for a rate from the least loaded open-loop rate run that
// held it, since capacity searches and ramps keep only the time to the
// last message a step.
func firstMessage(req Requirements, c *candidate, cases []*candidate, s *Stack) error {
	from, what := c, ""
	if req.firstAtRate() {
		from, what = rateRunAt(req.Rate, cases), fmt.Sprintf(" at %.0f req/s", req.Rate)
		if from == nil {
			s.NotMeasured = true
			s.Unmet = append(s.Unmet, fmt.Sprintf("first message%s: not measured (no open-loop rate run at or above it; capacity searches and ramps keep only the time to the last message)", what))
			return nil
		}
	}
	us, ok, err := firstMessageAt(from, req.Percentile)
	if err != nil {
		return fmt.Errorf("%s: %w", from.row.Case, err)
	}
	p := "p" + pct(req.Percentile)
	if !ok {
		if req.FirstMessageSLA > 0 {
			s.Unmet = append(s.Unmet, fmt.Sprintf("first message%s: not recorded by %s", what, from.row.Load))
		}
		return nil
	}
	s.FirstMessageUs = us
	s.Evidence = append(s.Evidence, fmt.Sprintf("first message %s %s, %.0f messages/s (%s, %s)", p, msStr(us), from.row.MessagesPerS.Median, from.row.Load, plural(from.row.Reps, "repetition")))
	if req.FirstMessageSLA > 0 && us > float64(req.FirstMessageSLA.Microseconds()) {
		s.Unmet = append(s.Unmet, fmt.Sprintf("first message%s: %s %s, over the %s first_message_sla", what, p, msStr(us), req.FirstMessageSLA))
	}
	return nil
}

// rateRunAt is the case of open-loop rate runs at the lowest rate at or
// above rate; nil for none.
func rateRunAt(rate float64, cases []*candidate) *candidate {
	var best *candidate
	var bestRate float64
	for _, c := range cases {
		var r float64
		if !strings.HasPrefix(c.row.Load, "rate:") {
			continue
		}
		if _, err := fmt.Sscanf(c.row.Load, "rate:%g", &r); err != nil || r < rate {
			continue
		}
		if best == nil || r < bestRate {
			best, bestRate = c, r
		}
	}
	return best
}

// firstMessageAt reads the time to the first message at percentile p
// from the case's repetitions' histograms merged, or else from their
// summaries (the median over repetitions) when p is one a summary keeps;
// ok is false when neither holds it.
func firstMessageAt(c *candidate, p float64) (us float64, ok bool, err error) {
	h := stats.NewHistogram()
	var summaries []float64
	for _, r := range c.recs {
		if r.FirstMessageHistogram != "" {
			x, err := stats.Decode(r.FirstMessageHistogram)
			if err != nil {
				return 0, false, fmt.Errorf("first_message_histogram: %w", err)
			}
			h.Merge(x)
		}
		if v, ok := summaryAt(r.FirstMessage, p); ok {
			summaries = append(summaries, v)
		}
	}
	if h.TotalCount() > 0 {
		return float64(h.ValueAtQuantile(p)), true, nil
	}
	if len(summaries) > 0 {
		return results.SpreadOf(summaries).Median, true, nil
	}
	return 0, false, nil
}

// summaryAt is a summary's figure at percentile p, when it keeps one.
func summaryAt(s *stats.Summary, p float64) (float64, bool) {
	if s == nil || s.Count == 0 {
		return 0, false
	}
	for _, q := range []struct {
		p  float64
		us int64
	}{{50, s.P50Us}, {90, s.P90Us}, {99, s.P99Us}, {99.9, s.P999Us}} {
		if q.p == p {
			return float64(q.us), true
		}
	}
	return 0, false
}
