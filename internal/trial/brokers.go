package trial

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/wire"
)

// brokerSet is the brokers an experiment's stacks talk through. Each is
// made ready before every run that needs it: one answering is used as is,
// one missing is started (again, if it died in an earlier run). Close
// stops those the experiment started.
type brokerSet struct {
	cfg   broker.Config
	addrs map[string]string
	live  map[string]*broker.Broker
	// onStart, if set, hears of each broker made ready for a run.
	onStart func(*broker.Broker)
}

func newBrokerSet(cfg broker.Config, addrs map[string]string) *brokerSet {
	return &brokerSet{cfg: cfg, addrs: addrs, live: map[string]*broker.Broker{}}
}

// ensure returns the named broker, answering.
func (bs *brokerSet) ensure(ctx context.Context, name string) (*broker.Broker, error) {
	if b := bs.live[name]; b != nil {
		if !b.Gone() {
			return b, nil
		}
		b.Close()
		delete(bs.live, name)
	}
	cfg := bs.cfg
	cfg.Addr = bs.addrs[name]
	b, err := broker.Start(ctx, name, cfg)
	if err != nil {
		return nil, err
	}
	bs.live[name] = b
	if bs.onStart != nil {
		bs.onStart(b)
	}
	return b, nil
}

// restart stops the named broker, if this experiment started it, so the
// next ensure starts it anew (fresh_brokers). One it found running stays
// (ensure's caller refuses it).
func (bs *brokerSet) restart(ctx context.Context, name string) error {
	b := bs.live[name]
	if b == nil || !b.Started {
		return nil
	}
	delete(bs.live, name)
	return b.Stop(ctx)
}

// close stops the brokers the experiment started, each once no other
// hopbench process uses it or ctx ends, and gives up its leases on the
// others.
func (bs *brokerSet) close(ctx context.Context) error {
	var errs []error
	for _, b := range bs.live {
		errs = append(errs, b.Stop(ctx))
	}
	bs.live = map[string]*broker.Broker{}
	return errors.Join(errs...)
}

// usageWindow measures processes' CPU time and memory over a run's
// measured window: it resets their peak RSS and notes their CPU at the
// start.
type usageWindow struct {
	pids []int
	cpu0 []float64
	// sched reads CPU time from the scheduler (stats.TaskCPU) rather
	// than /proc's clock ticks: for processes whose share of a short
	// window is a few ticks (proxies).
	sched bool
}

func startUsage(pids []int) *usageWindow { return newUsage(pids, false) }

func newUsage(pids []int, sched bool) *usageWindow {
	w := &usageWindow{pids: pids, cpu0: make([]float64, len(pids)), sched: sched}
	for i, pid := range pids {
		stats.ResetPeak(pid)
		if s, err := stats.ReadProc(pid); err == nil {
			w.cpu0[i] = w.cpuSeconds(pid, s)
		}
	}
	return w
}

// cpuSeconds is pid's CPU time: the scheduler's when asked for and
// readable, else /proc's (s).
func (w *usageWindow) cpuSeconds(pid int, s stats.Proc) float64 {
	if w.sched {
		if c, err := stats.TaskCPU(pid); err == nil {
			return c.Seconds()
		}
	}
	return s.CPUSeconds
}

// end returns each process's usage since start; requests divides CPU.
func (w *usageWindow) end(requests int64) []results.Usage {
	if w == nil {
		return nil
	}
	out := make([]results.Usage, len(w.pids))
	for i, pid := range w.pids {
		s, err := stats.ReadProc(pid)
		if err != nil {
			continue
		}
		out[i] = results.Usage{CPUSeconds: w.cpuSeconds(pid, s) - w.cpu0[i], RSSBytes: s.RSSBytes, PeakRSS: s.PeakRSSBytes, AnonRSS: s.AnonRSSBytes}
		if requests > 0 {
			out[i].CPUUsPerReq = out[i].CPUSeconds * 1e6 / float64(requests)
		}
	}
	return out
}

// brokerHome is where a run's broker is made sure of: the rig's own
// brokers here, or the agent's of the host the placement names.
type brokerHome interface {
	ensure(ctx context.Context, name string) (*broker.Broker, error)
}

// brokerRecord is a run's broker as its record carries it.
func brokerRecord(b *broker.Broker) results.Broker {
	return results.Broker{Name: b.Name, Addr: b.Addr, Version: b.Version, PID: b.PID, Started: b.Started}
}

// brokerWire is what went through the broker over the window, per
// request: every byte to or from it is a client's, the load generator's
// and the nodes' (whose figures must be read).
func brokerWire(nodes []results.Node, requests int64, clientWire wire.Totals) *results.WirePerRequest {
	if requests == 0 {
		return nil
	}
	w := nodesWire(nodes)
	n := float64(requests)
	return &results.WirePerRequest{Sent: float64(clientWire.Written+w.Written) / n, Received: float64(clientWire.Read+w.Read) / n}
}

// processUsage is a meter of processes' CPU and memory over the window,
// read from this machine's /proc; put says whose they are.
type processUsage struct {
	w   *usageWindow
	put func(got *readings, each []results.Usage)
}

func (u processUsage) end(_ context.Context, requests int64, got *readings) {
	u.put(got, u.w.end(requests))
}

// nodesMeter is the meter of the nodes this machine runs.
func nodesMeter(nodes *nodeSet) meterStart {
	return func(context.Context) meter {
		return processUsage{startUsage(nodes.pids()), func(got *readings, each []results.Usage) { got.nodes = each }}
	}
}

// brokerMeter is the meter of a broker this machine runs, if it has one.
func brokerMeter(leg brokerLeg) meterStart {
	return func(context.Context) meter {
		pid := leg.usage()
		if pid == 0 {
			return nil
		}
		return processUsage{startUsage([]int{pid}), func(got *readings, each []results.Usage) { got.brokers = each }}
	}
}

// watchBroker calls exited once if the run's broker exits before the run
// ends: at once for one this experiment started, within a quarter second
// for one it found running.
func watchBroker(b *broker.Broker, exited func()) (stop func()) {
	stopped, finished := make(chan struct{}), make(chan struct{})
	tick := time.NewTicker(250 * time.Millisecond)
	go func() {
		defer close(finished)
		defer tick.Stop()
		for {
			select {
			case <-b.Done(): // nil, never ready, unless this process started it
				exited()
				return
			case <-tick.C:
				if b.Gone() {
					exited()
					return
				}
			case <-stopped:
				return
			}
		}
	}()
	return func() { close(stopped); <-finished }
}

func brokerExited(b *broker.Broker) string {
	return fmt.Sprintf("the %s broker (pid %d) exited during the run", b.Name, b.PID)
}
