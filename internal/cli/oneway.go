package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/oneway"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/specyaml"
	"github.com/hopbench/hopbench/internal/transport"
)

// The modes a load or a run measures in: calls (request/reply, every
// stack) or one-way messages (broker stacks).
const (
	modeRequest = "request"
	modeOneWay  = "oneway"
)

// onewayFlags are hopbench load's one-way settings.
type onewayFlags struct {
	mode         string
	consumers    int
	groups       int
	drain, crash time.Duration
	encode       string
}

func (o *onewayFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&o.mode, "mode", modeRequest, "request (calls with replies, every stack) or oneway (broker stacks: publish, and consumers take the messages later; each message accounted for: docs/messaging.md)")
	fl.IntVar(&o.consumers, "consumers", 1, fmt.Sprintf("with --mode oneway: consumers sharing each group (at most %d)", oneway.MaxConsumers))
	fl.IntVar(&o.groups, "groups", 1, fmt.Sprintf("with --mode oneway: subscription groups, each taking every message (1: a work queue; more: a fan-out; at most %d)", oneway.MaxGroups))
	fl.DurationVar(&o.drain, "drain", 0, "with --mode oneway: how long to wait after the last publish for the consumers to take every message (default: --timeout)")
	fl.StringVar(&o.encode, "encode", oneway.EncodeOnce, "with --mode oneway: once (the body encoded once, sent every time) or each (every message encoded anew, as a producer serializing each record does)")
	fl.DurationVar(&o.crash, "crash", 0, "with --mode oneway: drop the first consumer this long into the measured window without settling its messages, as a crash would")
}

// spec is the one-way shape, nil for calls; it refuses one-way settings
// without --mode oneway, and what a one-way load cannot carry.
func (o *onewayFlags) spec(changed func(string) bool, target *load.TargetConfig, cfg load.Config) (*oneway.Shape, error) {
	switch o.mode {
	case modeRequest:
		for _, name := range []string{"consumers", "groups", "drain", "crash", "encode"} {
			if changed(name) {
				return nil, fmt.Errorf("--%s applies to --mode oneway only", name)
			}
		}
		return nil, nil
	case modeOneWay:
	default:
		return nil, fmt.Errorf("--mode %q: want %s or %s", o.mode, modeRequest, modeOneWay)
	}
	if _, err := transport.MessengerOf(target.Stack.Transport); err != nil {
		return nil, err
	}
	switch {
	case target.Op != transport.OpPost && target.Op != transport.OpEcho:
		return nil, fmt.Errorf("--op %s: a one-way message carries a body, so give post (or echo, the same body)", target.Op)
	case target.PerRequest:
		return nil, errors.New("--per-request: one-way publishers keep their connections")
	case cfg.Kind == load.Closed && cfg.Warmup > 0:
		return nil, errors.New("--warmup with --clients: a closed loop's warm-up publishes as fast as the broker takes messages and leaves a backlog the measured window would consume; leave the warm-up out, or give --rate")
	}
	target.OneWay = true
	if err := oneway.CheckEncode(o.encode); err != nil {
		return nil, fmt.Errorf("--encode %w", err)
	}
	ow := &oneway.Shape{Consumers: o.consumers, Groups: o.groups, Drain: specyaml.Duration(o.drain), Crash: specyaml.Duration(o.crash), Encode: o.encode}
	return ow, ow.Config().Check()
}

// oneWayRows are a one-way load's accounting as hopbench load prints it.
func oneWayRows(row func(k, v string, args ...any), ow *results.OneWay) {
	row("published", "%d messages taken by the broker, %d failed", ow.Published, ow.PublishFailed)
	if p := ow.Publish; p != nil {
		row("publish", "p50 %s  p99 %s  (due to the broker having it)", us(p.P50Us), us(p.P99Us))
	}
	row("accounted", "%d lost, %d duplicated, %d out of order", ow.Lost, ow.Duplicated, ow.OutOfOrder)
	drained := "every message taken"
	if !ow.Drained {
		drained = "NOT every message taken when the wait ended"
	}
	row("drain", "%.1f ms after the last publish: %s", ow.DrainMs, drained)
	for _, g := range ow.Groups {
		per := make([]string, len(g.PerConsumer))
		for i, n := range g.PerConsumer {
			per[i] = fmt.Sprint(n)
		}
		row("  group "+g.Name, "%d consumed (%s a consumer), %d lost, %d duplicated, %d out of order", g.Consumed, strings.Join(per, " / "), g.Lost, g.Duplicated, g.OutOfOrder)
	}
	for _, a := range ow.Aborted {
		row("crashed", "%s", a)
	}
}
