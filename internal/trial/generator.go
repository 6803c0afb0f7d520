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
	// dial connects to the entry node as target says.
	dial(ctx context.Context, target load.TargetConfig) error
	// drive runs the load cfg until its end or ctx's; opened is called
	// once as the measured window opens.
	drive(ctx context.Context, cfg load.Config, opened func()) (load.Measured, error)
	close()
}

// engineOf is the generator here that c names, across net, pinned by pin
// while it drives, telling hooks.
func engineOf(c *Case, net netPath, pin *pinning, hooks Hooks) generator {
	h := &here{driver: load.Engine, net: net, pin: pin, hooks: hooks}
	if c.Generator == Independent {
		h.driver = independent
	} else if c.OneWay != nil {
		h.driver = oneway.Driver(*c.OneWay)
	}
	return h
}

// here is a generator in this process: one measured window.
type here struct {
	driver load.Driver
	net    netPath
	pin    *pinning
	hooks  Hooks
	window *load.Window
}

func (h *here) dial(ctx context.Context, target load.TargetConfig) (err error) {
	h.window, err = load.OpenWindow(ctx, load.WindowConfig{Target: target, Network: h.net.inProcess(), From: h.net.from()})
	return err
}

func (h *here) drive(ctx context.Context, cfg load.Config, opened func()) (load.Measured, error) {
	if h.hooks.OnSecond != nil {
		cfg.Progress = h.hooks.OnSecond
	}
	cfg.Live = h.hooks.OnTick
	unpin, err := h.pin.pinGenerator()
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

// shares is a load split among the generator hosts' agents, across net;
// each keeps what its host measured.
type shares struct {
	gens   []*agent.Client
	net    netPath
	target load.TargetConfig
	each   []load.Measured
}

// sharesOf splits c's load among the agents of its placement's
// generator hosts.
func sharesOf(c *Case, a agents, net netPath) *shares {
	s := &shares{net: net}
	for _, h := range c.Placement.Generator {
		s.gens = append(s.gens, a[h])
	}
	return s
}

// dial leaves the entry node to the generator hosts, which dial it as
// target says.
func (s *shares) dial(_ context.Context, target load.TargetConfig) error {
	s.target = target
	s.target.Transport.ClientTLS = nil // refused with hosts
	return nil
}

func (s *shares) drive(ctx context.Context, cfg load.Config, opened func()) (load.Measured, error) {
	cfgs, err := agent.Split(cfg, len(s.gens))
	if err != nil {
		return load.Measured{}, err
	}
	gens := make([]*agent.Client, len(cfgs))
	parts := make([]agent.Share, len(cfgs))
	for i, c := range cfgs {
		gens[i] = s.gens[i]
		parts[i] = agent.Share{Load: c, Network: s.net.inProcess(), Target: s.target}
	}
	merged, each, err := agent.RunShares(ctx, gens, parts, opened)
	s.each = each
	return merged, err
}

func (*shares) close() {}
