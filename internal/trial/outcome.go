package trial

import (
	"context"
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
	}
	return res.Judge(rec) // the generator's rules, as hopbench load's
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
