package oneway

import (
	"context"
	"time"

	"github.com/hopbench/hopbench/internal/load"
)

// probe is one probe of a capacity search over one-way messages: the
// rate published for its step, then the wait for the consumers; its
// latency is end to end over the messages due in it, and the messages it
// published that no consumer took are its errors (class lost), so the
// search holds both to its bounds.
func (r *rig) probe(ctx context.Context, pc load.Config) (*load.Result, error) {
	from := r.t.seq.Load()
	r.t.restart(time.Now())
	res, err := load.Run(ctx, pc, r.newCall)
	if err != nil {
		return nil, err
	}
	r.drainFor(ctx, min(r.oc.Drain, load.ProbeDrain(pc.SLA)))
	to := r.t.seq.Load()
	var lost int64
	for _, g := range r.t.groups {
		lost += g.seen.missingIn(&r.t.published, from, to)
	}
	res.Latency, res.Uncorrected = r.t.latencies()
	if lost > 0 {
		res.Errors += lost
		res.ErrorsByClass[load.ClassLost.String()] += lost
	}
	return res, nil
}

// search is a capacity search whose probes are one-way (probe); the
// run's accounting covers every probe.
func (r *rig) search(ctx context.Context, cfg load.Config) (*load.Result, error) {
	res, err := load.SearchWith(ctx, cfg, r.probe)
	if err != nil {
		return nil, err
	}
	r.closeSubs()
	ow, _, _ := r.t.account()
	ow.Consumers, ow.Fanout, ow.Drained = r.oc.Consumers, r.oc.Groups > 1, true
	res.OneWay = &ow
	return res, nil
}
