package load

import (
	"context"
	"net"

	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/wire"
)

// WindowConfig is where a measured window's load goes and how its
// connections leave.
type WindowConfig struct {
	// Target is the service and the request; its Transport's Dialer is
	// the window's own, counting bytes.
	Target TargetConfig
	// Network is emulated in process on the generator's connections
	// (loopback: none).
	Network network.Profile
	// From is where the connections start from instead of here, e.g. a
	// host of a kernel-emulated network.
	From wire.Origin
}

// Window is one measured window against a dialled target: hopbench run,
// hopbench load and an agent's share of a load all measure through it.
// It dials the target with a byte counter of its own, and Measure warms
// up, opens the window (noting the bytes so far), drives the load and
// collects what the generator measured.
type Window struct {
	target *Target
	dialer *wire.Dialer
}

// Driver drives a load against a window's target through its counted
// dialer (Run through the target's calls, by default); the independent
// cross-check client is another.
type Driver func(ctx context.Context, cfg Config, w *Window) (*Result, error)

// Engine is hopbench's load engine as a Driver.
func Engine(ctx context.Context, cfg Config, w *Window) (*Result, error) {
	return Run(ctx, cfg, w.target.NewCall)
}

// OpenWindow dials cfg's target.
func OpenWindow(ctx context.Context, cfg WindowConfig) (*Window, error) {
	w := &Window{dialer: &wire.Dialer{Counter: &wire.Counter{}, Network: cfg.Network, From: cfg.From}}
	cfg.Target.Transport.Dialer = w.dialer
	t, err := DialTarget(ctx, cfg.Target)
	if err != nil {
		return nil, err
	}
	w.target = t
	return w, nil
}

// Target is the dialled target, for a probe before the load.
func (w *Window) Target() *Target { return w.target }

// Dial opens a connection as the window's do, counted with them.
func (w *Window) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return w.dialer.DialContext(ctx, network, addr)
}

// Measured is what a window measured: the engine's result, the bodies it
// sent and read, and its connections' bytes over the window.
type Measured struct {
	Result *Result
	// RequestBytes, RawRequestBytes and ReplyBytes are as Target says
	// them.
	RequestBytes, RawRequestBytes, ReplyBytes int
	Wire                                      wire.Totals
}

// Measure runs cfg's load through drive (nil: Engine); opened, if set,
// is called as the measured window opens, after the warm-up.
func (w *Window) Measure(ctx context.Context, cfg Config, drive Driver, opened func()) (Measured, error) {
	if drive == nil {
		drive = Engine
	}
	var before wire.Totals
	cfg.AtStart = func() {
		before = w.dialer.Counter.Snapshot()
		if opened != nil {
			opened()
		}
	}
	res, err := drive(ctx, cfg, w)
	if err != nil {
		return Measured{}, err
	}
	return Measured{Result: res, RequestBytes: w.target.RequestBytes(), RawRequestBytes: w.target.RawRequestBytes(),
		ReplyBytes: w.target.ReplyBytes(), Wire: w.dialer.Counter.Snapshot().Sub(before)}, nil
}

// Close closes the target's connections.
func (w *Window) Close() { w.target.Close() }

// Config is what the target was dialled with.
func (t *Target) Config() TargetConfig { return t.cfg }
