package trial

import (
	"context"

	"github.com/hopbench/hopbench/internal/agent"
	"github.com/hopbench/hopbench/internal/crosscheck"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/oneway"
)

// generator drives a run's load against its entry node and measures it:
// hopbench's engine here, the independent cross-check client here, or
// shares of the load from the placement's generator hosts, merged.
type generator interface {
	dial(ctx context.Context, m *measurement) error
	// drive runs the load until its end or ctx's; opened is called once
	// as the measured window opens.
	drive(ctx context.Context, m *measurement, opened func()) (load.Measured, error)
	close()
}

func engineOf(c *Case) generator {
	if c.Generator == Independent {
		return &here{driver: independent}
	}
	if c.OneWay != nil {
		return &here{driver: oneway.Driver(*c.OneWay)}
	}
	return &here{driver: load.Engine}
}

// here is a generator in this process: one measured window.
type here struct {
	driver load.Driver
	window *load.Window
}

func (h *here) dial(ctx context.Context, m *measurement) (err error) {
	h.window, err = load.OpenWindow(ctx, load.WindowConfig{Target: m.c.target(m.entry(), m.transportConfig()),
		Network: m.net.inProcess(), From: m.net.from()})
	return err
}

func (h *here) drive(ctx context.Context, m *measurement, opened func()) (load.Measured, error) {
	cfg := m.c.Load
	if m.hooks.OnSecond != nil {
		cfg.Progress = m.hooks.OnSecond
	}
	cfg.Live = m.hooks.OnTick
	unpin, err := m.pin.pinGenerator()
	if err != nil {
		return load.Measured{}, err
	}
	defer unpin()
	return h.window.Measure(ctx, cfg, h.driver, opened)
}

func (h *here) close() {
	if h.window != nil {
		h.window.Close()
	}
}

// independent drives the window's target with the cross-check client,
// through the window's counted dialer.
func independent(ctx context.Context, cfg load.Config, w *load.Window) (*load.Result, error) {
	t := w.Target().Config()
	return crosscheck.Run(ctx, crosscheck.Config{
		Addr: t.Addr, Op: t.Op, Model: t.Model, Count: t.Count, Seed: t.Seed,
		Rate: cfg.Rate, Warmup: cfg.Warmup, Duration: cfg.Duration, SLA: cfg.SLA, Timeout: cfg.Timeout,
		Dial: w.Dial, AtStart: cfg.AtStart,
	})
}

// shares is a load split among the placement's generator hosts; each
// keeps what its host measured.
type shares struct {
	each []load.Measured
}

// dial leaves the entry node to the generator hosts, which dial it.
func (*shares) dial(context.Context, *measurement) error { return nil }

func (s *shares) drive(ctx context.Context, m *measurement, opened func()) (load.Measured, error) {
	p := m.c.Placement
	cfgs, err := agent.Split(m.c.Load, len(p.Generator))
	if err != nil {
		return load.Measured{}, err
	}
	gens := make([]*agent.Client, len(cfgs))
	parts := make([]agent.Share, len(cfgs))
	for i, c := range cfgs {
		gens[i] = m.agents[p.Generator[i]]
		parts[i] = agent.Share{Load: c, Network: m.net.inProcess(), Target: m.c.target(m.insts[0].Addr(), m.transportConfig())}
		parts[i].Target.Transport.ClientTLS = nil // refused with hosts
	}
	merged, each, err := agent.RunShares(ctx, gens, parts, opened)
	s.each = each
	return merged, err
}

func (*shares) close() {}
