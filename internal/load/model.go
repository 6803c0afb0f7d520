package load

import (
	"time"

	"github.com/hopbench/hopbench/internal/specyaml"
)

// Model is one load model as a spec writes it; exactly one of its fields
// is set.
type Model struct {
	Closed *ClosedSpec `yaml:"closed" json:"closed,omitempty" jsonschema_description:"Closed loop: clients each sending when the last reply came."`
	Rate   *RateSpec   `yaml:"rate" json:"rate,omitempty" jsonschema_description:"Open loop at a fixed rate; latency from each request's intended send time."`
	Ramp   *RampSpec   `yaml:"ramp" json:"ramp,omitempty" jsonschema_description:"Clients or rate rising by a step every interval; results per step."`
	// Capacity searches open-loop rates for the highest that meets an SLA.
	Capacity *CapacitySpec `yaml:"capacity" json:"capacity,omitempty" jsonschema_description:"Open-loop search for the highest rate whose percentile stays within the SLA: the stack's capacity at that SLA, with every probed rate as a step."`
}

// ClosedSpec is a closed loop.
type ClosedSpec struct {
	Clients int `yaml:"clients" json:"clients,omitempty" jsonschema:"required" jsonschema_description:"Concurrent clients."`
}

// RateSpec is an open loop.
type RateSpec struct {
	Rate     float64 `yaml:"rate" json:"rate,omitempty" jsonschema:"required" jsonschema_description:"Requests per second."`
	Arrivals string  `yaml:"arrivals" json:"arrivals,omitempty" jsonschema:"enum=constant,enum=poisson" jsonschema_description:"constant (evenly spaced, default) or poisson."`
	Workers  int     `yaml:"workers" json:"workers,omitempty" jsonschema_description:"Most requests in flight (default 256)."`
}

// RampSpec is a rising load.
type RampSpec struct {
	Of    string            `yaml:"of" json:"of,omitempty" jsonschema:"required,enum=clients,enum=rate" jsonschema_description:"What rises: clients or rate."`
	From  float64           `yaml:"from" json:"from,omitempty" jsonschema:"required"`
	To    float64           `yaml:"to" json:"to,omitempty" jsonschema:"required"`
	Step  float64           `yaml:"step" json:"step,omitempty"`
	Every specyaml.Duration `yaml:"every" json:"every,omitempty" jsonschema:"required" jsonschema_description:"Interval between steps, whole seconds."`
}

// CapacitySpec is a capacity search; zero fields take Search's defaults.
type CapacitySpec struct {
	SLA        specyaml.Duration `yaml:"sla" json:"sla,omitempty" jsonschema:"required" jsonschema_description:"The latency the percentile must stay within, e.g. 10ms."`
	Percentile float64           `yaml:"percentile" json:"percentile,omitempty" jsonschema_description:"The percentile held to the SLA (default 99)."`
	MaxErrors  float64           `yaml:"max_errors" json:"max_errors,omitempty" jsonschema_description:"Share of calls that may fail for reasons other than lateness (default 0.001)."`
	Step       specyaml.Duration `yaml:"step" json:"step,omitempty" jsonschema_description:"Measured time of each probed rate (default 2s)."`
	Start      float64           `yaml:"start" json:"start,omitempty" jsonschema_description:"First rate probed, requests/s (default 1000); rates double until one fails, then are bisected."`
	MaxRate    float64           `yaml:"max_rate" json:"max_rate,omitempty" jsonschema_description:"Highest rate probed, requests/s (default 200000)."`
	Budget     specyaml.Duration `yaml:"budget" json:"budget,omitempty" jsonschema_description:"Time the whole search may take (default 40s); a search cut short says its capacity is a lower bound."`
	Arrivals   string            `yaml:"arrivals" json:"arrivals,omitempty" jsonschema:"enum=constant,enum=poisson" jsonschema_description:"constant (default) or poisson."`
}

// ModelOf is the spec's form of a load the engine was given (Config's
// inverse), for records of loads that no spec described (hopbench load).
func ModelOf(c Config) Model {
	arrivals := ""
	if c.Poisson {
		arrivals = "poisson"
	}
	switch c.Kind {
	case Closed:
		return Model{Closed: &ClosedSpec{Clients: c.Clients}}
	case Rate:
		return Model{Rate: &RateSpec{Rate: c.Rate, Arrivals: arrivals, Workers: c.Workers}}
	case Ramp:
		s := c.Steps
		return Model{Ramp: &RampSpec{Of: c.RampOf, From: s.From, To: s.To, Step: s.Step, Every: specyaml.Duration(s.Every)}}
	case Capacity:
		sc := c.Search
		return Model{Capacity: &CapacitySpec{SLA: specyaml.Duration(c.SLA), Percentile: sc.Percentile, MaxErrors: sc.MaxErrors, Step: specyaml.Duration(sc.Step),
			Start: sc.Start, MaxRate: sc.MaxRate, Budget: specyaml.Duration(c.Duration), Arrivals: arrivals}}
	}
	return Model{}
}

// Config is the engine's configuration of the load.
func (l Model) Config() Config {
	switch {
	case l.Closed != nil:
		return Config{Kind: Closed, Clients: l.Closed.Clients}
	case l.Rate != nil:
		return Config{Kind: Rate, Rate: l.Rate.Rate, Poisson: l.Rate.Arrivals == "poisson", Workers: l.Rate.Workers}
	case l.Ramp != nil:
		r := l.Ramp
		return Config{Kind: Ramp, RampOf: r.Of, Steps: Steps{From: r.From, To: r.To, Step: r.Step, Every: time.Duration(r.Every)}}
	case l.Capacity != nil:
		c := l.Capacity
		return Config{Kind: Capacity, SLA: time.Duration(c.SLA), Poisson: c.Arrivals == "poisson", Duration: time.Duration(c.Budget),
			Search: Search{Percentile: c.Percentile, MaxErrors: c.MaxErrors, Step: time.Duration(c.Step), Start: c.Start, MaxRate: c.MaxRate}}
	}
	return Config{}
}

// Check checks the load at field path at within lim, naming each field at
// fault to bad; false when not exactly one model is set.
func (l Model) Check(at string, lim Limits, bad func(path, format string, args ...any)) bool {
	set := 0
	for _, isSet := range []bool{l.Closed != nil, l.Rate != nil, l.Ramp != nil, l.Capacity != nil} {
		if isSet {
			set++
		}
	}
	if set != 1 {
		bad(at, "give exactly one of closed, rate, ramp or capacity (%d given)", set)
		return false
	}
	switch {
	case l.Closed != nil:
		if err := lim.CheckClients("clients", l.Closed.Clients); err != nil {
			bad(at+".closed.clients", "%v", err)
		}
	case l.Rate != nil:
		if err := lim.CheckRate("rate", l.Rate.Rate); err != nil {
			bad(at+".rate.rate", "%v", err)
		}
		if a := l.Rate.Arrivals; a != "" && a != "constant" && a != "poisson" {
			bad(at+".rate.arrivals", "%q: want constant or poisson", a)
		}
		if l.Rate.Workers < 0 {
			bad(at+".rate.workers", "%d: want a positive number (default 256)", l.Rate.Workers)
		} else if err := lim.CheckClients("workers", max(l.Rate.Workers, 1)); err != nil {
			bad(at+".rate.workers", "%v", err)
		}
	case l.Ramp != nil:
		l.Ramp.check(at+".ramp", lim, bad)
	case l.Capacity != nil:
		l.Capacity.check(at+".capacity", bad)
	}
	return true
}

func (c *CapacitySpec) check(at string, bad func(string, string, ...any)) {
	if c.SLA <= 0 {
		bad(at+".sla", "none given: the latency the percentile must stay within, e.g. {capacity: {sla: 10ms}}")
	}
	if a := c.Arrivals; a != "" && a != "constant" && a != "poisson" {
		bad(at+".arrivals", "%q: want constant or poisson", a)
	}
	if c.Budget < 0 || c.Budget > specyaml.Duration(time.Hour) {
		bad(at+".budget", "%v: want up to 1h (default 40s)", time.Duration(c.Budget))
	}
	cfg := Model{Capacity: c}.Config()
	cfg.SLA = max(cfg.SLA, time.Millisecond) // reported above when missing
	if err := cfg.Validate(); err != nil {
		bad(at, "%v", err)
	}
}

func (r *RampSpec) check(at string, lim Limits, bad func(string, string, ...any)) {
	if r.Of != "clients" && r.Of != "rate" {
		bad(at+".of", "%q: want clients or rate", r.Of)
	}
	switch {
	case r.From <= 0:
		bad(at+".from", "%v: want a positive start", r.From)
	case r.To < r.From:
		bad(at+".to", "%v: want at least from (%v)", r.To, r.From)
	case r.Step <= 0 && r.To > r.From:
		bad(at+".step", "%v: want a positive step", r.Step)
	case r.Of == "clients":
		if err := lim.CheckClients("clients", int(r.To)); err != nil {
			bad(at+".to", "%v", err)
		}
	case r.Of == "rate":
		if err := lim.CheckRate("rate", r.To); err != nil {
			bad(at+".to", "%v", err)
		}
	}
	if e := time.Duration(r.Every); e < time.Second || e%time.Second != 0 {
		bad(at+".every", "%v: want whole seconds, at least 1s (results are kept per second)", e)
	}
}
