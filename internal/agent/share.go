package agent

import (
	"fmt"
	"time"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/wire"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// Share is one generator host's part of a run's load: the service it
// calls and the load it sends, as the coordinator's engine would take
// them (Target's Transport carries HTTP version and options only: the
// agent dials with its own byte counter and the Network profile).
type Share struct {
	Target  load.TargetConfig
	Load    load.Config
	Network network.Profile
}

// Split divides a load among n generators: a closed load's clients as
// evenly as they go (the first hosts take one more), an open loop's rate
// and its workers (calls in flight) in equal parts. A constant rate split
// so is n evenly paced streams whose phases are not aligned, not one even
// stream; a Poisson rate split so is Poisson still. Ramps and capacity
// searches are not split.
func Split(c load.Config, n int) ([]load.Config, error) {
	switch {
	case n < 1:
		return nil, fmt.Errorf("agent: splitting a load among %d generators", n)
	case c.Kind == load.Closed && c.Clients < n:
		return nil, fmt.Errorf("a closed load of %d clients cannot be split among %d generator hosts: give at least one client each", c.Clients, n)
	case c.Kind == load.Closed && c.Requests > 0 && n > 1:
		return nil, fmt.Errorf("a load ended by a request count cannot be split among %d generator hosts: give a duration", n)
	case c.Kind != load.Closed && c.Kind != load.Rate:
		return nil, fmt.Errorf("a %s load runs from one process: hosts run closed and rate loads", c.Kind)
	}
	out := make([]load.Config, n)
	for i := range out {
		out[i] = c
		out[i].Progress, out[i].AtStart, out[i].Live = nil, nil, nil
		if c.Kind == load.Closed {
			out[i].Clients = c.Clients / n
			if i < c.Clients%n {
				out[i].Clients++
			}
		} else {
			out[i].Rate = c.Rate / float64(n)
			if c.Workers > 0 {
				out[i].Workers = max(1, (c.Workers+n-1)/n)
			}
		}
		out[i].Seed = c.Seed + uint64(i) // Poisson gaps of their own
	}
	return out, nil
}

// message is the share as the agent API carries it.
func (s Share) message(session string) *agentv1.LoadShare {
	t, c := s.Target, s.Load
	return &agentv1.LoadShare{Session: session,
		Target: &agentv1.Target{Stack: t.Stack.String(), Addr: t.Addr, Op: string(t.Op), Model: t.Model, Count: int32(t.Count), Seed: t.Seed,
			Schema: string(t.Schema), Connections: int32(t.Connections), PerRequest: t.PerRequest, Http2: t.Transport.HTTP2,
			Options: t.Transport.Options, Network: networkName(s.Network)},
		Load: &agentv1.Load{Kind: string(c.Kind), Clients: int32(c.Clients), Rate: c.Rate, Poisson: c.Poisson,
			WarmupNs: int64(c.Warmup), DurationNs: int64(c.Duration), Requests: c.Requests, SlaNs: int64(c.SLA), TimeoutNs: int64(c.Timeout),
			Seed: c.Seed, Workers: int32(c.Workers), MaxClients: int32(c.Limits.Clients), MaxRate: c.Limits.Rate},
	}
}

func networkName(p network.Profile) string {
	if p.IsLoopback() {
		return ""
	}
	return p.String()
}

// shareOf reads a share from the API, checking what the engine checks.
func shareOf(m *agentv1.LoadShare) (Share, error) {
	t, l := m.GetTarget(), m.GetLoad()
	if t == nil || l == nil {
		return Share{}, fmt.Errorf("a load share needs a target and a load")
	}
	st, err := transport.ParseStack(t.Stack)
	if err != nil {
		return Share{}, err
	}
	var s Share
	if t.Network != "" {
		if s.Network, err = network.Parse(t.Network); err != nil {
			return Share{}, err
		}
	}
	s.Target = load.TargetConfig{Stack: st, Addr: t.Addr, Op: transport.Op(t.Op), Model: t.Model, Count: int(t.Count), Seed: t.Seed,
		Schema: evolution.Version(t.Schema), Connections: int(t.Connections), PerRequest: t.PerRequest,
		Transport: transport.Config{HTTP2: t.Http2, Options: t.Options}}
	s.Load = load.Config{Kind: load.Kind(l.Kind), Clients: int(l.Clients), Rate: l.Rate, Poisson: l.Poisson,
		Warmup: time.Duration(l.WarmupNs), Duration: time.Duration(l.DurationNs), Requests: l.Requests,
		SLA: time.Duration(l.SlaNs), Timeout: time.Duration(l.TimeoutNs), Seed: l.Seed, Workers: int(l.Workers),
		Limits: load.Limits{Clients: int(l.MaxClients), Rate: l.MaxRate}}
	if s.Load.Kind != load.Closed && s.Load.Kind != load.Rate {
		return Share{}, fmt.Errorf("load kind %q: an agent runs closed and rate loads", l.Kind)
	}
	if s.Load.Duration <= 0 && s.Load.Requests <= 0 {
		return Share{}, fmt.Errorf("a load share needs a duration or a request count")
	}
	return s, s.Load.Validate()
}

func message(m load.Measured) (*agentv1.LoadResult, error) {
	r := m.Result
	out := &agentv1.LoadResult{Requests: r.Requests, Errors: r.Errors, Good: r.Good, ErrorsByClass: r.ErrorsByClass,
		ElapsedNs: int64(r.Elapsed), NotSent: r.NotSent, Sent: r.Sent, SentOnTime: r.SentOnTime, ClientCpuNs: int64(r.ClientCPU),
		WireWritten: m.Wire.Written, WireRead: m.Wire.Read,
		RequestBodyBytes: int64(m.RequestBytes), RequestBodyRawBytes: int64(m.RawRequestBytes), ResponseBodyBytes: int64(m.ReplyBytes)}
	var err error
	if out.Latency, err = stats.Encode(r.Latency); err != nil {
		return nil, err
	}
	if r.Uncorrected != nil {
		if out.Uncorrected, err = stats.Encode(r.Uncorrected); err != nil {
			return nil, err
		}
	}
	if r.Lateness != nil {
		if out.Lateness, err = stats.Encode(r.Lateness); err != nil {
			return nil, err
		}
	}
	for _, s := range r.Series {
		out.Series = append(out.Series, &agentv1.Second{T: int32(s.T), Requests: s.Requests, Errors: s.Errors, P50Us: s.P50Us, P99Us: s.P99Us, Late: s.Late})
	}
	return out, nil
}

func measuredOf(m *agentv1.LoadResult) (load.Measured, error) {
	r := &load.Result{Requests: m.Requests, Errors: m.Errors, Good: m.Good, ErrorsByClass: m.ErrorsByClass,
		Elapsed: time.Duration(m.ElapsedNs), NotSent: m.NotSent, Sent: m.Sent, SentOnTime: m.SentOnTime, ClientCPU: time.Duration(m.ClientCpuNs)}
	if r.ErrorsByClass == nil {
		r.ErrorsByClass = map[string]int64{}
	}
	var err error
	if r.Latency, err = stats.Decode(m.Latency); err != nil {
		return load.Measured{}, fmt.Errorf("the share's latency histogram: %w", err)
	}
	if m.Uncorrected != "" {
		if r.Uncorrected, err = stats.Decode(m.Uncorrected); err != nil {
			return load.Measured{}, fmt.Errorf("the share's uncorrected histogram: %w", err)
		}
	}
	if m.Lateness != "" {
		if r.Lateness, err = stats.Decode(m.Lateness); err != nil {
			return load.Measured{}, fmt.Errorf("the share's lateness histogram: %w", err)
		}
	}
	for _, s := range m.Series {
		r.Series = append(r.Series, results.Second{T: int(s.T), Requests: s.Requests, Errors: s.Errors, P50Us: s.P50Us, P99Us: s.P99Us, Late: s.Late})
	}
	return load.Measured{Result: r, RequestBytes: int(m.RequestBodyBytes), RawRequestBytes: int(m.RequestBodyRawBytes), ReplyBytes: int(m.ResponseBodyBytes),
		Wire: wire.Totals{Written: m.WireWritten, Read: m.WireRead}}, nil
}
