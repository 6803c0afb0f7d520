// Package advise ranks stacks for a user's stated requirements from
// measured results, and explains each rank with the figures behind it and
// the trade-offs the technologies declare. It never ranks a stack it has
// no measurement for: it says what is missing instead.
package advise

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
)

// Requirements are what the user needs; zero values mean "no requirement".
type Requirements struct {
	Model string `yaml:"model"` // payload model (payload.Names)
	Count int    `yaml:"count"` // items per message
	// Rate is the calls per second the service must carry.
	Rate float64 `yaml:"rate"`
	// SLA is the latency the Percentile of calls must stay within.
	SLA        time.Duration `yaml:"sla"`
	Percentile float64       `yaml:"percentile"`
	Topology   string        `yaml:"topology"` // direct, chain:N, ...
	// Async asks for callers and services decoupled by a broker; Durable
	// for requests that survive a restart.
	Async   bool `yaml:"async"`
	Durable bool `yaml:"durable"`
	// Browser asks for browsers or third parties to call the service.
	Browser bool `yaml:"browser"`
	// SchemaEvolution asks for a schema that can change safely.
	SchemaEvolution bool `yaml:"schema_evolution"`
	// MemoryMiB is the memory budget of one service, a broker included.
	MemoryMiB float64 `yaml:"memory_mib"`
	// Feed is the messages a reply carries when the service streams its
	// replies (server streaming, feed:N); 0 for one reply a call (echo).
	// A feed's latency, which SLA judges, runs to its last message.
	Feed int `yaml:"feed"`
	// FirstMessageSLA is what a feed's time to its first message, at the
	// Percentile, must stay within (with Feed only).
	FirstMessageSLA time.Duration `yaml:"first_message_sla"`
	// OneWay asks for messages published one way and consumed later
	// (broker stacks): one-way runs are ranked, by their end-to-end
	// latency, and calls are not; a run that lost messages stands for
	// nothing.
	OneWay bool `yaml:"oneway"`
	// Stacks limits the stacks considered; empty for all measured.
	Stacks []string `yaml:"stacks"`
	// Proto is the user's message Model names, if it is one
	// (docs/your-messages.md): what --measure sends. ProtoV2 is its next
	// version, whose change the stacks are judged on for SchemaEvolution.
	Proto   *userschema.Source `yaml:"proto"`
	ProtoV2 *userschema.Files  `yaml:"proto_v2"`
	// Trials are the trials of the user's change (ProtoV2) in every codec,
	// made by the caller (hopbench evolve's): each stack is judged on its
	// body codec's, in place of its runs' schema trials.
	Trials []evolution.Trial `yaml:"-"`
}

// Defaults fills what the user left out: the p99, a direct call.
func (r *Requirements) Defaults() {
	if r.Percentile == 0 {
		r.Percentile = 99
	}
	if r.Topology == "" {
		r.Topology = "direct"
	}
}

// Validate names the first field that cannot be met as given.
func (r *Requirements) Validate() error {
	if r.Model == "" {
		return fmt.Errorf("model: required, the payload your services exchange (one of %s)", strings.Join(payload.Names(), ", "))
	}
	m, err := payload.Lookup(r.Model)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if r.Count == 0 {
		return fmt.Errorf("count: required, how many %s items a message carries", r.Model)
	}
	if err := m.CheckCount(r.Count); err != nil {
		return fmt.Errorf("count: %w", err)
	}
	if r.Rate < 0 || r.SLA < 0 || r.MemoryMiB < 0 {
		return fmt.Errorf("rate, sla and memory_mib cannot be negative")
	}
	if r.Percentile <= 0 || r.Percentile >= 100 {
		return fmt.Errorf("percentile %v: want one between 0 and 100, such as 99", r.Percentile)
	}
	if _, err := topology.Parse(r.Topology); err != nil {
		return fmt.Errorf("topology: %w", err)
	}
	if err := r.validateFeed(); err != nil {
		return err
	}
	for i, name := range r.Stacks {
		st, err := transport.ParseStack(name)
		if err != nil {
			return fmt.Errorf("stacks: %w", err)
		}
		r.Stacks[i] = st.String()
	}
	return nil
}

// Stack is one stack's place in the advice.
type Stack struct {
	Name string
	// Fits is true when every requirement is met by the figures and the
	// technology's traits.
	Fits bool
	// LatencyUs is the latency at the required percentile in the run
	// judged: for a feed, to its last message.
	LatencyUs float64
	// FirstMessageUs is a feed's time to its first message at the
	// percentile, where the run judged recorded it.
	FirstMessageUs float64
	// Headroom is, for a rate with an SLA, the highest rate an open-loop
	// run held within the SLA divided by the rate asked; zero when none
	// reached the rate.
	Headroom float64
	// NotMeasured is true when no open-loop run reached the rate asked:
	// the stack's latency there is unknown (or, for a feed's first
	// message at a rate, no rate run at or above it recorded one).
	NotMeasured bool
	// Evidence are the figures used, each naming the run it came from.
	Evidence []string
	// Unmet says which requirements it fails and by how much.
	Unmet []string
	// TradeOffs are what the technology brings that no run measures.
	TradeOffs []string
	// Evolution is what the stack's schema trials measured, if any ran.
	Evolution *Evolution
}

// Advice is the ranked stacks and what the ranking could not use.
type Advice struct {
	Requirements Requirements
	// Basis says which measurements were compared.
	Basis  string
	Ranked []Stack
	// LeftOut names the runs of the compared payload whose figures a
	// flag withholds (they partly failed), by stack, and why: a stack
	// with no other run is not ranked at all.
	LeftOut []string
	Missing []string
	// Cannot names each stack considered that carries no feed, and why
	// (transport.FeedRefusal), when the requirements ask for feeds.
	Cannot []string
	// Count is the payload's count the figures are for (the nearest
	// measured to the one asked for); 0 when nothing matched.
	Count int
	// Unsettled are orders of stacks at this payload that flip between
	// two loads with nothing measured to explain it: the answer's order
	// is not settled between them (the caller fills it from the verdict).
	Unsettled []string
}

// Advise ranks the stacks measured in recs for req (which must be valid
// and have its defaults). Stacks that meet every requirement come first,
// lowest latency at the percentile first; then the rest, fewest unmet
// requirements first.
func Advise(req Requirements, recs []results.Record) (*Advice, error) {
	a := &Advice{Requirements: req, Cannot: cannot(req, recs)}
	cases, count := matching(req, recs)
	if len(cases) == 0 {
		a.LeftOut = leftOut(req, recs, nearestCount(req, recs, func(r *results.Record) bool { return r.Completed() && relevant(req, r) }))
		a.Missing = append(a.Missing, missingFor(req, recs))
		return a, nil
	}
	a.Basis, a.Count = fmt.Sprintf("%s×%d through %s%s", req.Model, count, req.Topology, req.feedWords()), count
	if count != req.Count {
		a.Basis += fmt.Sprintf(" (the measured count nearest the %d asked for)", req.Count)
		a.Missing = append(a.Missing, fmt.Sprintf("no run measured %s×%d: the figures are for ×%d; measure the size you need for figures that fit it", req.Model, req.Count, count))
	}
	a.LeftOut = leftOut(req, recs, count)
	var unmeasured []string
	evos := evolutions(recs)
	if len(req.Trials) > 0 {
		evos = codecEvolutions(req.Trials, stackOrder(cases))
	}
	for _, name := range stackOrder(cases) {
		s, err := judge(req, name, cases[name], evos[name])
		if err != nil {
			return nil, err
		}
		a.Ranked = append(a.Ranked, s)
		if s.NotMeasured {
			unmeasured = append(unmeasured, name)
		}
	}
	if len(unmeasured) > 0 {
		a.Missing = append(a.Missing, fmt.Sprintf("%s at %.0f req/s was not measured for %s; measure it (%s) with: %s",
			req.unmeasuredWords(), req.Rate, strings.Join(unmeasured, ", "), req.measureWords(), measureCommand(req, unmeasured)))
	}
	slices.SortStableFunc(a.Ranked, func(x, y Stack) int {
		if x.Fits != y.Fits {
			if x.Fits {
				return -1
			}
			return 1
		}
		if len(x.Unmet) != len(y.Unmet) {
			return len(x.Unmet) - len(y.Unmet)
		}
		if req.SchemaEvolution && x.Evolution != nil && y.Evolution != nil {
			if c := cmp.Compare(y.Evolution.share(), x.Evolution.share()); c != 0 {
				return c
			}
		}
		if x.Headroom != y.Headroom {
			return cmp.Compare(y.Headroom, x.Headroom)
		}
		return cmp.Compare(x.LatencyUs, y.LatencyUs)
	})
	return a, nil
}

// NeedsMeasurement reports whether the results could not answer: nothing
// matched, or some stack's latency at the rate asked was not measured.
func (a *Advice) NeedsMeasurement() bool {
	return len(a.Ranked) == 0 || slices.ContainsFunc(a.Ranked, func(s Stack) bool { return s.NotMeasured })
}

// atRateAsked reports whether the requirements ask for an SLA at a rate,
// which only open-loop runs can judge.
func (r Requirements) atRateAsked() bool { return r.Rate > 0 && r.SLA > 0 }

// A candidate is one case (all repetitions of a configuration) of a stack.
type candidate struct {
	row  results.Row
	recs []*results.Record
}

// matching keeps the usable runs of the operation (echo, or the feed
// asked), model and topology required at the measured count nearest the
// one asked for, grouped by stack.
func matching(req Requirements, recs []results.Record) (map[string][]*candidate, int) {
	best := nearestCount(req, recs, func(r *results.Record) bool { return usable(req, r) })
	var kept []results.Record
	for _, r := range recs {
		if usable(req, &r) && r.Count == best {
			kept = append(kept, r)
		}
	}
	byCase := map[string]*candidate{}
	out := map[string][]*candidate{}
	for _, row := range results.Summarize(kept) {
		c := &candidate{row: row}
		byCase[row.Case] = c
		out[row.Stack] = append(out[row.Stack], c)
	}
	for i := range kept {
		c := byCase[kept[i].Case]
		c.recs = append(c.recs, &kept[i])
	}
	return out, best
}

// usable says whether r answers req: a run whose figures stand, of the
// model, topology and stacks asked.
// nearestCount is the count nearest req's among the records kept; 0 for
// none.
func nearestCount(req Requirements, recs []results.Record, keep func(*results.Record) bool) int {
	best, bestDist := 0, math.Inf(1)
	for i := range recs {
		if r := &recs[i]; keep(r) {
			if d := math.Abs(math.Log(float64(r.Count) / float64(req.Count))); d < bestDist {
				best, bestDist = r.Count, d
			}
		}
	}
	return best
}

func usable(req Requirements, r *results.Record) bool { return r.Stands() && relevant(req, r) }

func relevant(req Requirements, r *results.Record) bool {
	if len(req.Stacks) > 0 && !slices.Contains(req.Stacks, r.Stack) {
		return false
	}
	if (r.OneWay != nil) != req.OneWay {
		return false
	}
	op := r.Op == req.Op()
	if req.OneWay {
		op = sameKind(req, r.Op)
	}
	return r.Model == req.Model && r.Topology == req.Topology && op && r.Count > 0
}

// leftOut says, stack by stack, which runs at count measured to their end
// but were left out because a flag withholds their figures, and why; a
// stack left with no run is not ranked.
func leftOut(req Requirements, recs []results.Record, count int) []string {
	var order []string
	out, ranked := map[string][]*results.Record{}, map[string]bool{}
	for i := range recs {
		r := &recs[i]
		switch {
		case !relevant(req, r) || r.Count != count || !r.Completed():
		case r.Stands():
			ranked[r.Stack] = true
		default:
			if out[r.Stack] == nil {
				order = append(order, r.Stack)
			}
			out[r.Stack] = append(out[r.Stack], r)
		}
	}
	var lines []string
	for _, st := range order {
		runs := out[st]
		then := "its other runs are ranked"
		switch {
		case runs[0].Flags.Has(results.FlagContradicted):
			then = "unsettled: its figures contradict each other, so it is not ranked on them; measure again (--measure)"
		case !ranked[st]:
			then = "not ranked: no run of it at this payload stands"
		}
		lines = append(lines, fmt.Sprintf("%s: %s left out (%s, %s); %s", st, plural(len(runs), "run"), runs[0].Load, runs[0].Flags, then))
	}
	return lines
}

func stackOrder(cases map[string][]*candidate) []string {
	var names []string
	for n := range cases {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// missingFor says what the records hold instead of what was asked.
func missingFor(req Requirements, recs []results.Record) string {
	seen := map[string]bool{}
	var have []string
	for _, r := range recs {
		k := fmt.Sprintf("%s×%d through %s", r.Model, r.Count, r.Topology)
		if req.Feed > 0 {
			k = r.Op + " of " + k
		}
		if r.Stands() && sameKind(req, r.Op) && !seen[k] {
			seen[k] = true
			have = append(have, k)
		}
	}
	if req.Feed > 0 {
		return missingFeed(req, have)
	}
	msg := fmt.Sprintf("no echo run of %s through %s whose figures stand in these results", req.Model, req.Topology)
	if len(have) > 0 {
		msg += " (they measured " + strings.Join(have, "; ") + ")"
	}
	return msg + ": measure it with --measure, or run a spec with that payload and topology and pass its results"
}

// judge picks the run that answers the requirements for one stack and
// checks each requirement against it and the stack's traits.
func judge(req Requirements, name string, cases []*candidate, evo *Evolution) (Stack, error) {
	s := Stack{Name: name}
	st, err := transport.ParseStack(name)
	if err != nil {
		return s, err
	}
	tr, err := transport.Lookup(st.Transport)
	if err != nil {
		return s, err
	}
	c, sustained := pick(req, cases)
	var best *candidate // the highest throughput, capacity searches aside
	for _, x := range cases {
		if !x.row.Searched && (best == nil || x.row.RPS.Median > best.row.RPS.Median) {
			best = x
		}
	}
	if req.atRateAsked() {
		at := judgeAtRate(req, cases)
		at.rateEvidence(req, &s)
		sustained = sustained || at.fits(req.Rate)
	} else {
		lat, err := latencyAt(c, req.Percentile)
		if err != nil {
			return s, fmt.Errorf("%s: %w", c.row.Case, err)
		}
		s.LatencyUs = lat
		s.Evidence = append(s.Evidence, fmt.Sprintf("p%s %s at %.0f req/s (%s, %s)", pct(req.Percentile), msStr(lat), c.row.RPS.Median, c.row.Load, plural(c.row.Reps, "repetition")))
		if req.SLA > 0 && lat > float64(req.SLA.Microseconds()) {
			s.Unmet = append(s.Unmet, fmt.Sprintf("latency%s: p%s %s, over the %s SLA", req.toLast(), pct(req.Percentile), msStr(lat), req.SLA))
		}
	}
	if req.Feed > 0 {
		if err := firstMessage(req, c, cases, &s); err != nil {
			return s, err
		}
	}
	if req.Rate > 0 && !sustained {
		// best is nil when every case was a capacity search (it used to
		// be dereferenced all the same): pick's case is then the fastest.
		top := best
		if top == nil {
			top = c
		}
		s.Unmet = append(s.Unmet, fmt.Sprintf("rate: %.0f req/s needed, %.0f req/s at most in these runs", req.Rate, top.row.RPS.Median))
	}
	if best != nil {
		s.Evidence = append(s.Evidence, fmt.Sprintf("peak %.0f req/s (%s)", best.row.RPS.Median, best.row.Load))
	}
	s.Evidence = append(s.Evidence, resources(req, c, &s)...)
	traits(req, st, transport.TraitsOf(tr), evo, &s)
	s.Fits = len(s.Unmet) == 0
	return s, nil
}

// pick is the case to judge a stack by: with a rate, the least loaded run
// that carried it (its latency is the one closest to that rate's); without
// one, the least loaded run.
func pick(req Requirements, cases []*candidate) (*candidate, bool) {
	byLoad := slices.Clone(cases)
	slices.SortStableFunc(byLoad, func(x, y *candidate) int { return cmp.Compare(x.row.RPS.Median, y.row.RPS.Median) })
	if req.Rate > 0 {
		for _, c := range byLoad {
			if c.row.RPS.Median >= req.Rate {
				return c, true
			}
		}
		return byLoad[len(byLoad)-1], false
	}
	return byLoad[0], true
}

// latencyAt reads the percentile from every repetition's histogram merged.
func latencyAt(c *candidate, p float64) (float64, error) {
	h := stats.NewHistogram()
	for _, r := range c.recs {
		if r.Histogram == "" {
			continue
		}
		x, err := stats.Decode(r.Histogram)
		if err != nil {
			return 0, err
		}
		h.Merge(x)
	}
	if h.TotalCount() == 0 {
		return c.row.P99Us.Median, nil
	}
	return float64(h.ValueAtQuantile(p)), nil
}

func resources(req Requirements, c *candidate, s *Stack) []string {
	var cpu, rss, brokerRSS []float64
	for _, r := range c.recs {
		nodes, largest, _ := r.Services()
		cpu, rss = append(cpu, nodes), append(rss, float64(largest))
		for _, b := range r.Brokers {
			brokerRSS = append(brokerRSS, float64(b.RSSBytes))
		}
	}
	med := func(v []float64) float64 { return results.SpreadOf(v).Median }
	mem := (med(rss) + med(brokerRSS)) / (1 << 20)
	ev := []string{fmt.Sprintf("services' CPU %.0f µs per request; largest service %.0f MiB", med(cpu), med(rss)/(1<<20))}
	if req.OneWay { // no service ran: the generator published and consumed
		ev[0] = "no service of its own: the generator published and consumed"
	}
	if len(brokerRSS) > 0 {
		ev[0] += fmt.Sprintf(", broker %.0f MiB", med(brokerRSS)/(1<<20))
	}
	if b := bytesPerRequest(c.recs, req.Feed > 0); b != "" {
		ev = append(ev, b)
	}
	if req.MemoryMiB > 0 && mem > req.MemoryMiB {
		s.Unmet = append(s.Unmet, fmt.Sprintf("memory: %.0f MiB (service and broker), over the %.0f MiB budget", mem, req.MemoryMiB))
	}
	return ev
}

// traits checks the requirements no run measures against what the
// technology and its body codec declare.
func traits(req Requirements, st transport.Stack, t transport.Traits, evo *Evolution, s *Stack) {
	if (req.Async || req.Durable) && !t.Decoupled {
		s.Unmet = append(s.Unmet, "asynchronous decoupling: callers and services talk directly, with no broker between them")
	}
	if req.Durable && t.Decoupled && t.Durable == "" {
		s.Unmet = append(s.Unmet, "durability: requests are not kept; none survives a broker restart")
	}
	if req.Durable && t.Durable != "" {
		s.TradeOffs = append(s.TradeOffs, "durable: "+t.Durable)
	}
	if req.Browser && t.Browser != "" {
		s.Unmet = append(s.Unmet, "browser clients: "+t.Browser)
	}
	schema := t.Schema
	if schema == "" {
		if c, err := codec.Lookup(st.Codec); err == nil {
			if e, ok := c.(codec.Evolving); ok {
				schema = e.SchemaEvolution()
			}
		}
	}
	schemaEvolution(req, st, evo, schema, s)
	s.TradeOffs = append(s.TradeOffs, t.Notes...)
}

func pct(p float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", p), "0"), ".")
}

func msStr(us float64) string { return fmt.Sprintf("%.3f ms", us/1000) }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// bytesPerRequest says what a request costs on the wire: the request and
// reply bodies as the stack sends them (for a feed, one message's body),
// and the caller's bytes a request on its connections (headers, framing
// and TLS included), medians over the records; "" when they hold none.
func bytesPerRequest(recs []*results.Record, feed bool) string {
	var req, reply, wire []float64
	for _, r := range recs {
		if r.RequestBodyBytes > 0 {
			req = append(req, float64(r.RequestBodyBytes))
		}
		if r.ResponseBodyBytes > 0 {
			reply = append(reply, float64(r.ResponseBodyBytes))
		}
		if r.Wire != nil {
			wire = append(wire, r.Wire.Sent+r.Wire.Received)
		}
	}
	if len(req)+len(reply)+len(wire) == 0 {
		return ""
	}
	med := func(v []float64) string {
		if len(v) == 0 {
			return "not measured"
		}
		return fmt.Sprintf("%.0f B", results.SpreadOf(v).Median)
	}
	if feed { // a feed's request carries no body
		return fmt.Sprintf("bytes a feed: each message's body %s, on the caller's connections %s", med(reply), med(wire))
	}
	return fmt.Sprintf("bytes a request: request body %s, reply body %s, on the caller's connections %s", med(req), med(reply), med(wire))
}
