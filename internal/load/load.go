package load

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/hopbench/hopbench/internal/results"
)

// Call makes one request and reads its reply; a nil error is a good reply.
// A Call is used by one worker at a time.
type Call func(ctx context.Context) error

// Kind is the load model.
type Kind string

const (
	Closed Kind = "closed" // Clients workers, each sending when its last reply came
	Rate   Kind = "rate"   // open loop at Rate requests/s
	Ramp   Kind = "ramp"   // clients or rate rising in Steps
	// Capacity searches open-loop rates for the highest that meets the
	// SLA (see Search); Duration is the search's time budget.
	Capacity Kind = "capacity"
)

// Config is one load. Zero values take the documented defaults.
type Config struct {
	Kind Kind
	// Clients is the closed model's concurrency.
	Clients int
	// Rate is the open-loop rate (requests/s); Poisson draws exponential
	// gaps instead of even ones.
	Rate    float64
	Poisson bool
	// Workers bounds the calls in flight for open loops (default 256; a
	// capacity search sizes each probe's pool from its rate and the SLA);
	// a due request waiting for a free worker keeps its intended send time.
	Workers int
	// Search is a capacity search's settings.
	Search Search
	// Limits bound clients, calls in flight and rates (zero: the
	// defaults).
	Limits Limits
	// Steps and RampOf ("clients" or "rate") describe a ramp.
	Steps  Steps
	RampOf string
	// Duration of the measured window; for a ramp it defaults to every
	// step once. Requests, if set for a closed load, ends the window after
	// that many requests instead.
	Duration time.Duration
	Requests int64
	// Warmup runs the load before measuring and discards it.
	Warmup time.Duration
	// SLA: a reply later than this is an error of class over_sla (default 1s).
	SLA time.Duration
	// Timeout ends a call that has had no reply (default 30s).
	Timeout time.Duration
	// Seed draws Poisson gaps.
	Seed uint64
	// Progress, if set, receives each measured second as it completes.
	Progress func(results.Second)
	// Live, if set, receives each measured second's figures for live
	// metrics as it closes (and requests reporting after their second
	// closed, as late ticks): the engine counts what it needs for them
	// only when it is set.
	Live func(Tick)
	// AtStart, if set, is called when the measured window opens (after
	// the warm-up): the moment to snapshot counters kept outside the
	// engine, such as wire bytes.
	AtStart func()

	// clock is the engine's time (default: the system's); only tests set
	// it, through export_test.go.
	clock clock
}

// checkRampTo refuses a ramp whose last step is beyond the limits.
func (c *Config) checkRampTo() error {
	switch c.RampOf {
	case "clients":
		return c.Limits.CheckClients("ramp to", int(c.Steps.To))
	case "rate":
		return c.Limits.CheckRate("ramp to", c.Steps.To)
	}
	return nil
}

// Validate checks the fields, naming the one at fault.
func (c *Config) Validate() error {
	if err := c.Limits.Check(); err != nil {
		return err
	}
	if err := c.validateKind(); err != nil {
		return err
	}
	switch {
	case c.Requests < 0:
		return fmt.Errorf("requests %d: want a positive count", c.Requests)
	case c.Requests > 0 && c.Kind != Closed:
		return errors.New("requests: a request count ends closed loads only; give open loops a duration")
	case c.Requests == 0 && c.Duration <= 0:
		return fmt.Errorf("duration %v: want a positive duration (or a request count)", c.Duration)
	case c.Warmup < 0:
		return fmt.Errorf("warmup %v: want zero or more", c.Warmup)
	}
	if c.Workers <= 0 && c.Kind != Capacity {
		c.Workers = min(DefaultWorkers, c.Limits.clients())
	}
	if c.Workers > 0 && c.Open() {
		if err := c.Limits.CheckClients("workers", c.Workers); err != nil {
			return err
		}
	}
	if c.SLA <= 0 {
		c.SLA = DefaultSLA
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.clock == nil {
		c.clock = systemClock{}
	}
	return nil
}

// validateKind checks the fields of the load model, and fills in the
// duration a ramp or a capacity search takes by default.
func (c *Config) validateKind() error {
	switch c.Kind {
	case Closed:
		if err := c.Limits.CheckClients("clients", c.Clients); err != nil {
			return err
		}
	case Rate:
		if err := c.Limits.CheckRate("rate", c.Rate); err != nil {
			return err
		}
	case Ramp:
		if err := c.Steps.Validate(); err != nil {
			return err
		}
		if err := c.checkRampTo(); err != nil {
			return err
		}
		if c.RampOf != "clients" && c.RampOf != "rate" {
			return fmt.Errorf("ramp of %q: want clients or rate", c.RampOf)
		}
		if c.Steps.Every%time.Second != 0 {
			return fmt.Errorf("ramp every %v: want whole seconds, since results are kept per second", c.Steps.Every)
		}
		if c.Duration == 0 {
			c.Duration = c.Steps.Duration()
		}
	case Capacity:
		if err := c.Search.validate(); err != nil {
			return err
		}
		if c.Duration == 0 {
			c.Duration = DefaultBudget
		}
		if c.Duration < c.Warmup+c.Search.Step {
			return fmt.Errorf("capacity budget %v: shorter than the warm-up and one probe (%v); give the search more time", c.Duration, c.Warmup+c.Search.Step)
		}
	default:
		return fmt.Errorf("load model %q: want closed, rate, ramp or capacity", c.Kind)
	}
	return nil
}

// Open reports whether the load is an open loop, paced by arrivals rather
// than by replies.
func (c *Config) Open() bool {
	return c.Kind == Rate || c.Kind == Capacity || c.Kind == Ramp && c.RampOf == "rate"
}

// Result is what one load measured.
type Result struct {
	Requests int64 // measured requests that ended, errors included
	Errors   int64
	// Good counts replies that came back well within the SLA: what a
	// caller with that deadline got (Requests less every error class,
	// over_sla included).
	Good int64
	// ErrorsByClass counts each error class; over_sla requests are errors.
	ErrorsByClass map[string]int64
	// Elapsed runs from the start of the measured window to the end of its
	// last request.
	Elapsed time.Duration
	// Latency is from the intended send time: for open loops that includes
	// waiting for a free worker (coordinated omission corrected). Refused
	// calls, which never reached the service, are not in it.
	Latency *hdrhistogram.Histogram
	// Uncorrected is from the actual send time; open loops only.
	Uncorrected *hdrhistogram.Histogram
	// Lateness is the generator's own lateness in sending each request
	// past its due time (its timers, its hand-off; not a wait for a
	// worker the service kept busy); open loops only.
	Lateness *hdrhistogram.Histogram
	// FirstMessage is a feed's time to its first message, from the
	// intended send time as Latency is (which, for a feed, runs to its
	// last message); nil when no call had a message (unary calls).
	FirstMessage *hdrhistogram.Histogram
	// Messages counts the messages of the feeds' replies, late ones
	// included and failed calls' not, as RPS counts replies.
	Messages int64
	Series   []results.Second
	// NotSent counts open-loop requests due in the measured window that
	// were never sent: the generator fell so far behind that they were
	// still waiting when the window's drain ended.
	NotSent int64
	// Sent counts open-loop requests due in the measured window that were
	// sent, and SentOnTime those of them sent before it closed. Requests
	// due in the warm-up count in neither, even when sent after the window
	// opened, as they count in no other figure of it.
	Sent, SentOnTime int64
	Steps            []results.Step // ramps, and a capacity search's probes
	// Capacity is what a capacity search found; nil for other loads.
	Capacity *results.SearchResult
	// ClientCPU is this process's CPU time over the measured window.
	ClientCPU time.Duration
	// OneWay is a one-way run's accounting; nil for calls.
	OneWay *results.OneWay
	// capacityMessagesPerS is a capacity search's messages per second
	// at the probe at its capacity.
	capacityMessagesPerS float64
}

// Failed counts the calls that got no good reply: every error but a reply
// later than the SLA.
func (r *Result) Failed() int64 { return r.Errors - r.ErrorsByClass[ClassOverSLA.String()] }

// RPS is replies per second over the measured window, late ones included
// and failed calls not (ErrorRPS counts those); for a capacity search, the
// rate achieved by the probe at the capacity.
func (r *Result) RPS() float64 {
	if r.Capacity != nil {
		return r.capacityStep().RPS
	}
	return perSecond(r.Requests-r.Failed(), r.Elapsed)
}

// MessagesPerS is a feed's messages per second over the measured window,
// in replies late ones included, as RPS counts them; for a capacity
// search, at the probe at the capacity. Zero for unary calls.
func (r *Result) MessagesPerS() float64 {
	if r.Capacity != nil {
		return r.capacityMessagesPerS
	}
	return perSecond(r.Messages, r.Elapsed)
}

// ErrorRPS is failed calls per second over the measured window.
func (r *Result) ErrorRPS() float64 { return perSecond(r.Failed(), r.Elapsed) }

func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// GoodRPS is good replies (within the SLA) per second over the measured
// window: goodput, which a run whose replies are all late has none of,
// however many it counted.
func (r *Result) GoodRPS() float64 {
	if r.Capacity != nil {
		return r.capacityStep().GoodRPS
	}
	return perSecond(r.Good, r.Elapsed)
}

// capacityStep is a capacity search's probe at its capacity; a zero step
// when no rate met the SLA.
func (r *Result) capacityStep() results.Step {
	if r.Capacity.Step < 0 {
		return results.Step{}
	}
	return r.Steps[r.Capacity.Step]
}

// ClientCPUPerRequest is the generator's CPU per request, in microseconds.
func (r *Result) ClientCPUPerRequest() float64 {
	if r.Requests == 0 {
		return 0
	}
	return float64(r.ClientCPU.Microseconds()) / float64(r.Requests)
}

// String names the load compactly, as results and tables show it:
// closed:32, rate:1000, rate:1000/poisson, ramp:clients:10-200+10/30s.
func (c *Config) String() string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	switch c.Kind {
	case Closed:
		return "closed:" + strconv.Itoa(c.Clients)
	case Rate:
		if c.Poisson {
			return "rate:" + g(c.Rate) + "/poisson"
		}
		return "rate:" + g(c.Rate)
	case Ramp:
		s := c.Steps
		return fmt.Sprintf("ramp:%s:%s-%s+%s/%s", c.RampOf, g(s.From), g(s.To), g(s.Step), s.Every)
	case Capacity:
		p := orDefault(c.Search.Percentile, defaultSearch.Percentile)
		return fmt.Sprintf("capacity:p%s<=%s", g(p), c.SLA) + c.Search.knobs(c.Duration, c.Poisson)
	}
	return string(c.Kind)
}
