package oneway

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/load"
)

// Config is a one-way load's shape beyond the load's own (its rate or
// producers, duration, warm-up and timeout).
type Config struct {
	// Consumers is how many subscribers share each group (default 1).
	Consumers int
	// Groups is how many subscription groups take every message (default
	// 1: a work queue the consumers compete for; more is a fan-out).
	Groups int
	// Drain bounds the wait, after the last publish, for the consumers to
	// take every message (default: the load's timeout).
	Drain time.Duration
	// Abort, if set, drops the first group's first consumer this long
	// into the measured window without settling anything, as a crash
	// would; the others go on.
	Abort time.Duration
	// EncodeEach has every publish encode the message anew (and compress
	// it, when the stack does), as a producer serializing each record
	// does; otherwise the body encoded once is sent every time.
	EncodeEach bool
}

// Bounds on a one-way load's shape.
const (
	MaxConsumers = 64
	MaxGroups    = 16
)

// Check refuses a shape past the bounds.
func (c Config) Check() error {
	switch {
	case c.Consumers < 0 || c.Consumers > MaxConsumers:
		return fmt.Errorf("consumers %d: want 1 to %d", c.Consumers, MaxConsumers)
	case c.Groups < 0 || c.Groups > MaxGroups:
		return fmt.Errorf("fan-out to %d groups: want 1 to %d", c.Groups, MaxGroups)
	case c.Drain < 0 || c.Abort < 0:
		return errors.New("drain and abort times may not be negative")
	}
	return nil
}

func (c Config) withDefaults(cfg load.Config) Config {
	c.Consumers, c.Groups = max(c.Consumers, 1), max(c.Groups, 1)
	if c.Drain == 0 {
		c.Drain = cmp.Or(cfg.Timeout, load.DefaultTimeout)
	}
	return c
}

// Driver is a load.Driver that publishes the window's request body as
// one-way messages at the load's rate (or as fast as the broker takes
// them, closed), consumes them in oc's groups, and accounts for each.
// The result's latency is end to end; its requests are the publishes.
func Driver(oc Config) load.Driver {
	return func(ctx context.Context, cfg load.Config, w *load.Window) (*load.Result, error) {
		if err := oc.Check(); err != nil {
			return nil, err
		}
		r, err := newRig(ctx, oc.withDefaults(cfg), w.Target())
		if err != nil {
			return nil, err
		}
		defer r.close()
		if cfg.Kind == load.Capacity {
			return r.search(ctx, cfg)
		}
		return r.measure(ctx, cfg)
	}
}

// runID is a random number no other run draws: messages of another run
// left in a queue are told apart by it.
func runID() uint64 {
	var b [8]byte
	rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// brokerGroup is group's name at the broker: the run's own, as its target
// is. A broker keeps a consumer group's members past a run (Kafka, after
// it died and came back), and the next run's g1 was assigned no
// partition while the dead run's members held them.
func (r *rig) brokerGroup(group string) string { return group + "-" + runSuffix(r.run) }

// runSuffix is what a run adds to the names it owns at the broker.
func runSuffix(run uint64) string { return strconv.FormatUint(run&0xffffffffff, 36) }

// runTarget is addr's queue, topic or subject with the run's own suffix:
// each run publishes to a name of its own, removed after it, so nothing
// of an earlier run is consumed in it.
func runTarget(addr, scheme string, run uint64) (string, error) {
	if !strings.Contains(addr, "://") {
		addr = scheme + "://" + addr
	}
	u, err := url.Parse(addr)
	if err != nil {
		return "", fmt.Errorf("one-way target %q: %w", addr, err)
	}
	name := strings.Trim(u.Path, "/")
	if name == "" {
		name = "hopbench"
	}
	u.Path = "/" + name + "-oneway-" + runSuffix(run)
	return u.String(), nil
}
