package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// Search is a capacity search: open-loop probes at rising rates, then a
// bisection, for the highest rate at which the Percentile of latencies
// (from the intended send time) stays within Config.SLA and failed calls
// within MaxErrors. Config.Duration bounds the whole search.
type Search struct {
	Percentile float64       // default 99
	MaxErrors  float64       // share of calls failed for any reason but lateness; default 0.001
	Step       time.Duration // each probe's measured time; default 2s
	Start      float64       // the first rate probed; default 1000
	MaxRate    float64       // the highest rate probed; default 200 000
	// Resolution ends the bisection when the lowest failing rate is within
	// this share above the highest passing one; default 0.05.
	Resolution float64
}

// Search defaults and bounds.
const (
	DefaultBudget  = 40 * time.Second
	minProbeRate   = results.MinProbeRate // below this the search gives up
	keptShare      = 0.97                 // achieved ÷ intended a probe must reach
	saturatedShare = 0.9                  // of this process's cores: the generator is saturated
	minAutoWorkers = 8
	maxAutoWorkers = 4096
)

// defaultSearch holds the settings a search takes when left zero. Start:
// a probe of 2s at 1000 req/s has 2000 calls, 20 in its p99's tail.
var defaultSearch = Search{Percentile: 99, MaxErrors: results.MaxFailedShare, Step: 2 * time.Second, Start: 1000, MaxRate: 200_000, Resolution: 0.05}

// orDefault is v, or d when v is zero.
func orDefault[T comparable](v, d T) T {
	var zero T
	if v == zero {
		return d
	}
	return v
}

func (s *Search) validate() error {
	d := defaultSearch
	s.Percentile, s.MaxErrors, s.Step = orDefault(s.Percentile, d.Percentile), orDefault(s.MaxErrors, d.MaxErrors), orDefault(s.Step, d.Step)
	s.Start, s.MaxRate, s.Resolution = orDefault(s.Start, d.Start), orDefault(s.MaxRate, d.MaxRate), orDefault(s.Resolution, d.Resolution)
	var errs []error
	for _, c := range []struct {
		bad bool
		msg string
	}{
		{s.Percentile <= 0 || s.Percentile >= 100, fmt.Sprintf("capacity percentile %v: want one between 0 and 100, such as 99", s.Percentile)},
		{s.MaxErrors < 0 || s.MaxErrors >= 1, fmt.Sprintf("capacity max_errors %v: want a share of calls from 0 to below 1, such as 0.001", s.MaxErrors)},
		{s.Step < 500*time.Millisecond, fmt.Sprintf("capacity step %v: want at least 500ms, enough calls for a percentile", s.Step)},
		{s.Start < minProbeRate || s.MaxRate < s.Start || s.MaxRate > MaxRate, fmt.Sprintf("capacity start %v and max_rate %v: want 1 ≤ start ≤ max_rate ≤ %d (requests/s)", s.Start, s.MaxRate, MaxRate)},
		{s.Resolution < 0.01 || s.Resolution > 1, fmt.Sprintf("capacity resolution %v: want 0.01 to 1", s.Resolution)},
	} {
		if c.bad {
			errs = append(errs, errors.New(c.msg))
		}
	}
	return errors.Join(errs...)
}

// knobs names the settings a search has beyond its percentile and SLA
// that differ from the defaults, so that two searches that differ name
// two cases: "/step:1s/budget:15s".
func (s Search) knobs(budget time.Duration, poisson bool) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	d := defaultSearch
	var out string
	for _, k := range []struct {
		set  bool
		name string
	}{
		{orDefault(s.Step, d.Step) != d.Step, "step:" + s.Step.String()},
		{orDefault(s.Start, d.Start) != d.Start, "start:" + g(s.Start)},
		{orDefault(s.MaxRate, d.MaxRate) != d.MaxRate, "max_rate:" + g(s.MaxRate)},
		{orDefault(s.MaxErrors, d.MaxErrors) != d.MaxErrors, "max_errors:" + g(s.MaxErrors)},
		{orDefault(s.Resolution, d.Resolution) != d.Resolution, "resolution:" + g(s.Resolution)},
		{budget != 0 && budget != DefaultBudget, "budget:" + budget.String()},
		{poisson, "poisson"},
	} {
		if k.set {
			out += "/" + k.name
		}
	}
	return out
}

// capacitySearch runs the search cfg describes (Kind Capacity, validated).
// Requests, errors, a feed's messages and CPU in the result count every
// probe; latency, time to first message and the rates RPS, GoodRPS and
// MessagesPerS report are the probe at the capacity's.
func capacitySearch(ctx context.Context, cfg Config, newCall func() Call) (*Result, error) {
	return SearchWith(ctx, cfg, func(ctx context.Context, pc Config) (*Result, error) { return Run(ctx, pc, newCall) })
}

// A Prober measures one probe of a capacity search: an open-loop load of
// pc (Run, by default; package oneway's one-way messages, whose latency
// is end to end and whose lost messages are errors).
type Prober func(ctx context.Context, pc Config) (*Result, error)

// SearchWith runs the capacity search cfg describes (Kind Capacity) with
// probe measuring each rate.
func SearchWith(ctx context.Context, cfg Config, probe Prober) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &searcher{cfg: cfg, probeRun: probe, deadline: cfg.clock.Now().Add(cfg.Duration)}
	s.res = &Result{ErrorsByClass: map[string]int64{}, Latency: stats.NewHistogram(), Uncorrected: stats.NewHistogram(),
		Capacity: &results.SearchResult{Percentile: cfg.Search.Percentile, SLAUs: cfg.SLA.Microseconds(), MaxErrors: cfg.Search.MaxErrors, Step: -1}}
	s.run(ctx)
	return s.res, nil
}

type searcher struct {
	cfg       Config
	probeRun  Prober
	deadline  time.Time
	res       *Result
	good, bad float64 // highest passing and lowest failing rate so far
	seconds   int     // series offset
	retrying  bool    // the probe under way repeats a rate that failed
}

// passed takes a probe within the SLA at rate, r its result; if it
// repeated a rate that had just failed, that failure was a transient.
func (s *searcher) passed(rate float64, r *Result) {
	c := s.res.Capacity
	if s.retrying {
		s.retrying = false
		first := &s.res.Steps[len(s.res.Steps)-2]
		first.Transient = transientCause(*first, s.cfg.SLA)
		c.Transients++
	}
	if rate >= s.good {
		s.good = rate
		c.RPS, c.Step = rate, len(s.res.Steps)-1
		s.res.Latency, s.res.Uncorrected, s.res.FirstMessage = r.Latency, r.Uncorrected, r.FirstMessage
		s.res.capacityMessagesPerS = float64(r.Messages) / s.cfg.Search.Step.Seconds()
	}
}

// failed takes a probe that failed at rate: the first time, it asks for
// the rate again (true), after a settle, so that one stall of the service
// or the machine cannot pass for the knee; failed twice, the rate bounds
// the search.
func (s *searcher) failed(rate float64) (again bool) {
	if !s.retrying {
		s.retrying = true
		return true
	}
	s.retrying = false
	s.res.Capacity.Confirmed++
	s.bad = rate
	s.res.Capacity.Above = rate
	return false
}

// transientCause says what failed a probe that passed when repeated.
func transientCause(st results.Step, sla time.Duration) string {
	switch {
	case st.Probe == results.ProbeErrors:
		return fmt.Sprintf("errors: %d of %d calls failed", st.Failed(), st.Requests)
	case st.Uncorrected != nil && st.Uncorrected.P99Us <= sla.Microseconds():
		return "the generator's own lateness: its calls went out late, those sent answered within the SLA"
	case st.Probe == results.ProbeShort:
		return "a stall: the service fell behind the rate"
	}
	return fmt.Sprintf("lateness: the percentile at %v, over the %v SLA", time.Duration(st.PercentileUs)*time.Microsecond, sla)
}

func (s *searcher) run(ctx context.Context) {
	c := s.res.Capacity
	rate := s.cfg.Search.Start
	for {
		if ctx.Err() != nil {
			s.stop("interrupted")
			return
		}
		first := len(s.res.Steps) == 0
		if !first && s.cfg.clock.Now().Add(s.probeCost(false)).After(s.deadline) {
			s.stop(fmt.Sprintf("the time budget (%v) ran out", s.cfg.Duration))
			return
		}
		st, r, err := s.probe(ctx, rate, first)
		if err != nil {
			c.Ended = err.Error()
			return
		}
		if ctx.Err() != nil {
			continue // stopped during the probe: a part of one says nothing
		}
		st.Retry = s.retrying
		s.res.Steps = append(s.res.Steps, st)
		switch st.Probe {
		case results.ProbeWithin:
			s.passed(rate, r)
		case results.ProbeGenerator:
			s.stop(fmt.Sprintf("the generator could not keep %.0f req/s (achieved %.0f) while the service was within its SLA", rate, st.RPS))
			return
		default:
			if s.failed(rate) {
				continue // probe it again before it bounds the search
			}
		}
		next, ended := s.next(rate)
		if ended != "" {
			s.stop(ended)
			return
		}
		rate = next
	}
}

// stop ends the search, saying why: a lower bound if no rate failed, cut
// short if the rates that passed and failed are further apart than the
// resolution.
func (s *searcher) stop(why string) {
	c := s.res.Capacity
	if s.retrying {
		// Stopped before a failure could be probed again: it bounds the
		// search all the same, and says it was seen once.
		rate := s.res.Steps[len(s.res.Steps)-1].Value
		s.bad, c.Above, s.retrying = rate, rate, false
		why += fmt.Sprintf("; %.0f req/s failed once and was not probed again", rate)
	}
	c.Ended = why
	c.LowerBound = s.bad == 0 && s.good > 0
	c.CutShort = s.good > 0 && s.bad > s.good*(1+s.cfg.Search.Resolution)
}

// next is the rate to probe after rate, or why the search is over.
func (s *searcher) next(rate float64) (float64, string) {
	sc := s.cfg.Search
	switch {
	case s.bad == 0 && rate >= sc.MaxRate:
		return 0, fmt.Sprintf("max_rate (%.0f req/s) met the SLA", sc.MaxRate)
	case s.bad == 0:
		return min(rate*2, sc.MaxRate), ""
	case s.good == 0 && rate/2 < minProbeRate:
		return 0, fmt.Sprintf("no rate down to %.0f req/s met the SLA", rate)
	case s.good == 0:
		return rate / 2, ""
	case s.bad <= s.good*(1+sc.Resolution):
		return 0, fmt.Sprintf("bracketed: %.0f req/s met the SLA, %.0f did not", s.good, s.bad)
	}
	return math.Sqrt(s.good * s.bad), ""
}

// probeCost is how long a probe takes, its settling pause and drain
// included.
func (s *searcher) probeCost(first bool) time.Duration {
	d := s.settle() + s.cfg.Search.Step + s.drain()
	if first {
		d += s.cfg.Warmup
	}
	return d
}

// settle is the idle pause before a probe, so the work a failed one left
// queued (in a broker, a server's backlog) does not land on the next.
func (s *searcher) settle() time.Duration {
	if len(s.res.Steps) > 0 && s.res.Steps[len(s.res.Steps)-1].Probe != results.ProbeWithin {
		return time.Second
	}
	return 250 * time.Millisecond
}

// drain is how long after its window a probe waits for calls in flight;
// calls still out then never complete in it, and count against the rate
// the probe achieved.
func (s *searcher) drain() time.Duration { return ProbeDrain(s.cfg.SLA) }

// ProbeDrain is how long after its window a capacity probe at sla waits
// for what it sent: calls in flight, or one-way messages not yet consumed.
func ProbeDrain(sla time.Duration) time.Duration { return max(4*sla, 500*time.Millisecond) }

// probe runs one open-loop rate for a step and judges it; r is what the
// probe measured.
func (s *searcher) probe(ctx context.Context, rate float64, first bool) (st results.Step, r *Result, _ error) {
	if !first && !s.cfg.clock.SleepUntil(ctx, s.cfg.clock.Now().Add(s.settle())) {
		return results.Step{}, nil, nil
	}
	sc := s.cfg.Search
	pc := Config{Kind: Rate, Rate: rate, Poisson: s.cfg.Poisson, Workers: s.workers(rate), Duration: sc.Step,
		SLA: s.cfg.SLA, Timeout: s.cfg.Timeout, Seed: s.cfg.Seed + uint64(len(s.res.Steps)), clock: s.cfg.clock}
	if first {
		pc.Warmup, pc.AtStart = s.cfg.Warmup, s.cfg.AtStart
	}
	pc.Progress, pc.Live = s.cfg.shiftedBy(s.seconds)
	pctx, cancel := context.WithTimeout(ctx, pc.Warmup+sc.Step+s.drain())
	defer cancel()
	due := scheduledIn(pctx, pc)
	r, err := s.probeRun(pctx, pc)
	if err != nil {
		return results.Step{}, nil, err
	}
	s.add(r)
	st = results.Step{Value: rate, Requests: r.Requests, Errors: r.Errors, ErrorsByClass: r.ErrorsByClass,
		RPS: float64(r.SentOnTime) / sc.Step.Seconds(), GoodRPS: float64(r.Good) / sc.Step.Seconds(),
		Unanswered: max(0, r.Sent-r.Requests), Latency: stats.Summarize(r.Latency)}
	kept := float64(r.SentOnTime) >= keptShare*float64(due)
	u := stats.Summarize(r.Uncorrected)
	st.Uncorrected = &u
	if r.Requests > 0 {
		st.WithinSLA = float64(r.Good) / float64(r.Requests)
	}
	if r.Elapsed > 0 {
		st.ClientCPUCores = r.ClientCPU.Seconds() / r.Elapsed.Seconds()
	}
	q, lost := quantileOfSent(r.Latency.TotalCount(), st.Unanswered, sc.Percentile)
	st.PercentileUs = r.Latency.ValueAtQuantile(q)
	st.Probe = s.judge(st, kept, lost, r.Uncorrected.ValueAtQuantile(q))
	return st, r, nil
}

// quantileOfSent is the quantile of the answered calls that stands for
// percentile p of all calls sent, the unanswered counted as later than
// any answered; lost is true when the unanswered reach into p itself.
func quantileOfSent(answered, unanswered int64, p float64) (q float64, lost bool) {
	if answered == 0 {
		return p, unanswered > 0
	}
	q = p * float64(answered+unanswered) / float64(answered)
	return min(q, 100), q > 100
}

// judge says how a probe went. The generator is blamed only when it could
// not send the rate or used its cores up while the service answered within
// the SLA from the actual send time. A probe that kept its rate and whose
// latency from the intended send time was over the SLA fails, whoever was
// late: that is the latency callers on this machine would see.
//
// kept says whether the generator sent 97 % of the calls its pacer made
// due; lost whether calls unanswered by the drain deadline reach into the
// percentile (they count as later than any answered one); rawUs is the
// percentile from the actual send time.
func (s *searcher) judge(st results.Step, kept, lost bool, rawUs int64) string {
	sc, slaUs := s.cfg.Search, s.cfg.SLA.Microseconds()
	within := st.PercentileUs <= slaUs && !lost
	switch {
	case st.Requests > 0 && float64(st.Failed()) > sc.MaxErrors*float64(st.Requests):
		return results.ProbeErrors
	case within && kept:
		return results.ProbeWithin
	case (!kept || st.ClientCPUCores >= saturatedShare*float64(stats.UsableCPUs())) && st.Requests > 0 && rawUs <= slaUs && !lost:
		return results.ProbeGenerator
	case !within:
		return results.ProbeOverSLA
	}
	return results.ProbeShort
}

// workers is a probe's pool: the configured size, or enough that calls at
// twice the SLA in flight at the rate never wait for one (Little's law),
// so a pool that is too small is never mistaken for a slow service.
func (s *searcher) workers(rate float64) int {
	if s.cfg.Workers > 0 {
		return s.cfg.Workers
	}
	return min(max(minAutoWorkers, int(math.Ceil(2*rate*s.cfg.SLA.Seconds()))), maxAutoWorkers)
}

// add counts a probe into the search's totals.
func (s *searcher) add(r *Result) {
	t := s.res
	t.Requests += r.Requests
	t.Errors += r.Errors
	t.Good += r.Good
	t.Messages += r.Messages
	t.Elapsed += r.Elapsed
	t.ClientCPU += r.ClientCPU
	for k, v := range r.ErrorsByClass {
		t.ErrorsByClass[k] += v
	}
	for _, sec := range r.Series {
		sec.T += s.seconds
		t.Series = append(t.Series, sec)
	}
	s.seconds += int(math.Ceil(r.Elapsed.Seconds()))
}
