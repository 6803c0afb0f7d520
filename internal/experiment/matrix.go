package experiment

import (
	"fmt"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/transport"
)

// Run is one cell of the matrix: everything one measurement needs. It is
// written into its result record as the run's config.
type Run struct {
	Index int `json:"index"`
	// Part is the part of the spec the run belongs to, if it has parts.
	Part        string   `json:"part,omitempty"`
	Repetition  int      `json:"repetition"`
	Stack       string   `json:"stack"`
	Topology    string   `json:"topology"`
	Op          string   `json:"op"`
	Model       string   `json:"model"`
	Count       int      `json:"count"`
	Load        LoadSpec `json:"load"`
	Duration    Duration `json:"duration"`
	Requests    int64    `json:"requests,omitempty"`
	Warmup      Duration `json:"warmup"`
	SLA         Duration `json:"sla"`
	Timeout     Duration `json:"timeout"`
	TLS         bool     `json:"tls"`
	MTLS        bool     `json:"mtls"`
	HTTP2       bool     `json:"http2"`
	Cache       bool     `json:"cache"`
	Pin         string   `json:"pin"`
	Memory      ByteSize `json:"memory,omitempty"`
	Connections int      `json:"connections"`
	Seed        uint64   `json:"seed"`
	// TransportOptions are the stack's own settings given in the spec.
	TransportOptions map[string]string `json:"transport_options,omitempty"`
}

// DefaultDuration is a run's measured time when the spec gives neither a
// duration nor a request count (ramps default to every step once).
const DefaultDuration = 10 * time.Second

// Runs expands the matrix. Repetitions are outermost, so every case is
// measured once before any is measured again, and stacks innermost, so the
// runs a reader compares are made close together in time.
func (s *Spec) Runs() []Run {
	if len(s.parts) > 0 {
		var runs []Run
		for _, p := range s.parts {
			for _, r := range p.Runs() {
				r.Index = len(runs)
				runs = append(runs, r)
			}
		}
		return runs
	}
	var runs []Run
	for rep := range s.Repetitions {
		for _, top := range s.Topologies {
			for _, p := range s.Payloads {
				for _, count := range p.Counts {
					for _, op := range s.Ops {
						for _, l := range s.Loads {
							for _, tls := range s.TLS {
								for _, h2 := range s.HTTP2 {
									for _, cache := range s.Cache {
										for _, st := range s.Stacks {
											r := s.run(st, top, p.Model, count, op, l)
											r.Repetition, r.TLS, r.HTTP2, r.Cache = rep, tls, h2, cache
											r.MTLS = tls && s.MTLS
											r.Index = len(runs)
											runs = append(runs, r)
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return runs
}

func (s *Spec) run(stack, top, model string, count int, op string, l LoadSpec) Run {
	st, _ := transport.ParseStack(stack) // validated
	r := Run{
		Part: s.part, Stack: st.String(), Topology: top, Op: op, Model: model, Count: count, Load: l,
		Duration: s.Duration, Requests: s.Requests, Warmup: *s.Warmup, SLA: s.SLA, Timeout: s.Timeout,
		Pin: s.Pin, Memory: s.Memory, Connections: s.Connections, Seed: s.Seed,
		TransportOptions: s.TransportOptions.For(st.Transport),
	}
	if l.Closed == nil {
		r.Requests = 0
	}
	if r.Duration == 0 && r.Requests == 0 {
		r.Duration = Duration(DefaultDuration)
		if l.Ramp != nil {
			c := l.config()
			r.Duration = Duration(c.Steps.Duration())
		}
	}
	return r
}

// LoadConfig is the engine's configuration for the run.
func (r Run) LoadConfig() load.Config {
	c := r.Load.config()
	c.Duration, c.Requests, c.Warmup = time.Duration(r.Duration), r.Requests, time.Duration(r.Warmup)
	c.SLA, c.Timeout, c.Seed = time.Duration(r.SLA), time.Duration(r.Timeout), r.Seed
	return c
}

// LoadName is the load as tables show it, e.g. closed:32.
func (r Run) LoadName() string {
	c := r.Load.config()
	return c.String()
}

// Case names the run's configuration without its repetition, after its
// part if the spec has parts.
func (r Run) Case() string {
	parts := []string{r.Stack, r.Topology, r.Op, fmt.Sprintf("%s×%d", r.Model, r.Count), r.LoadName()}
	if r.Part != "" {
		parts = append([]string{r.Part + ":"}, parts...)
	}
	if o := r.Options(); o != "" {
		parts = append(parts, o)
	}
	return strings.Join(parts, " ")
}

// Options names what the run sets beyond stack, topology, payload and load,
// e.g. "mtls h2 cache" or "100 requests"; empty for none.
func (r Run) Options() string {
	var parts []string
	if r.Requests > 0 {
		parts = append(parts, fmt.Sprintf("%d requests", r.Requests))
	}
	for _, flag := range []struct {
		on   bool
		name string
	}{{r.TLS && !r.MTLS, "tls"}, {r.MTLS, "mtls"}, {r.HTTP2, "h2"}, {r.Cache, "cache"}} {
		if flag.on {
			parts = append(parts, flag.name)
		}
	}
	return strings.Join(parts, " ")
}
