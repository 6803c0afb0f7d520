package trial

import (
	"context"
	"fmt"
	"time"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/results"
)

// outcome says how a run that was made ended: what cut it short, if
// anything, or whether its calls all succeeded. A run whose calls failed
// loses its latency and throughput figures here: none stands for the
// service.
func outcome(ctx, runCtx context.Context, leg brokerLeg, nodes *nodeSet, hops hops, rec *results.Record, res *load.Result) (string, string) {
	switch {
	case context.Cause(runCtx) == errProxyExited:
		return hops.exited(rec)
	case context.Cause(runCtx) == errBrokerExited:
		return results.OutcomeBrokerDied, leg.exited()
	case context.Cause(runCtx) == errNodeExited:
		return nodes.exitOutcome(rec.Nodes)
	case context.Cause(runCtx) == errNodeUnavailable && leg.dying(brokerExitWithin):
		return results.OutcomeBrokerDied, leg.exited()
	case context.Cause(runCtx) == errNodeUnavailable:
		return results.OutcomeNodeUnavailable, nodes.lost + "; the broker lived on"
	case nodes != nil && nodes.resetErr != nil:
		return results.OutcomeFailed, nodes.resetErr.Error()
	case ctx.Err() != nil:
		return results.OutcomeInterrupted, "stopped before the end of the run; figures are partial"
	case res.Capacity != nil:
		return capacityOutcome(res)
	}
	if why := res.CallsFailed(); why != "" {
		rec.Figures.Withhold()
		rec.Histogram, rec.UncorrectedHistogram, rec.FirstMessageHistogram, rec.Series, rec.Steps = "", "", "", nil, nil
		return results.OutcomeCallsFailed, why
	}
	switch {
	case res.NotSent > 0:
		return results.OutcomeErrors, fmt.Sprintf("the generator never sent %d requests due in the window (it fell that far behind the rate)", res.NotSent)
	case res.Errors > 0:
		return results.OutcomeErrors, ""
	}
	return results.OutcomeOK, ""
}

// capacityOutcome judges a capacity search by its probe at the capacity:
// the probes above it fail by design, and replies over the SLA at the
// capacity are the tail its percentile allows; calls that failed there
// are errors.
func capacityOutcome(res *load.Result) (string, string) {
	c := res.Capacity
	if c.Step < 0 {
		return results.OutcomeErrors, "no capacity: " + c.Ended
	}
	if res.Steps[c.Step].Failed() > 0 {
		return results.OutcomeErrors, ""
	}
	return results.OutcomeOK, ""
}

// brokerExitWithin bounds the wait for a broker that a node lost to finish
// exiting: RabbitMQ stopped politely (SIGTERM) closes its connections
// seconds before its process ends.
const brokerExitWithin = 15 * time.Second

// brokerDying says whether brk is gone or goes within d: a broker that
// closed its connections as it stops is judged once it has stopped, not
// while it is still exiting (and the next run finds it gone, and starts
// it again). A broker that answers through d lived on.
func brokerDying(brk *broker.Broker, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for !brk.Gone() {
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-brk.Done(): // nil, never ready, unless this process started it
		case <-time.After(100 * time.Millisecond):
		}
	}
	return true
}
