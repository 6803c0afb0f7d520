package load

import (
	"fmt"
	"strings"

	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/wire"
)

// Figures are the result as a record carries them. wire is the client's traffic over the
// measured window (zero when not counted).
func (r *Result) Figures(w wire.Totals) results.Figures {
	s := stats.Summarize(r.Latency)
	f := results.Figures{
		Requests: r.Requests, Errors: r.Errors, ErrorsByClass: r.ErrorsByClass, RPS: r.RPS(), ErrorRPS: r.ErrorRPS(), GoodRPS: r.GoodRPS(), ElapsedS: r.Elapsed.Seconds(), NotSent: r.NotSent,
		MeanUs: s.MeanUs, P50Us: s.P50Us, P90Us: s.P90Us, P99Us: s.P99Us, P999Us: s.P999Us, MaxUs: s.MaxUs,
		ClientCPUUsPerReq: r.ClientCPUPerRequest(), OneWay: r.OneWay,
	}
	if r.Uncorrected != nil {
		u := stats.Summarize(r.Uncorrected)
		f.Uncorrected = &u
	}
	if r.Lateness != nil && r.Lateness.TotalCount() > 0 {
		l := stats.Summarize(r.Lateness)
		f.Lateness = &l
	}
	if r.FirstMessage != nil && r.FirstMessage.TotalCount() > 0 {
		fm := stats.Summarize(r.FirstMessage)
		f.FirstMessage = &fm
	}
	f.MessagesPerS = r.MessagesPerS()
	if r.Capacity != nil {
		f.CapacityRPS, f.Capacity = r.Capacity.RPS, r.Capacity
	}
	if r.Requests > 0 && (w.Written > 0 || w.Read > 0) {
		f.Wire = &results.WirePerRequest{Sent: float64(w.Written) / float64(r.Requests), Received: float64(w.Read) / float64(r.Requests)}
	}
	return f
}

// CallsFailed says why a load's figures stand for nothing, or "" when
// they stand: no call ended in its window, or more than half of its calls
// got no reply (refused, timed out, unreadable, an error). A capacity
// search is judged by its own probes instead.
func (r *Result) CallsFailed() string {
	if r.Capacity != nil {
		return ""
	}
	failed := r.Failed()
	switch {
	case r.Requests == 0 && r.NotSent > 0:
		return fmt.Sprintf("the generator sent none of the %d requests due in the measured window: it was still sending those due before it, that far behind the rate; lower the rate", r.NotSent)
	case r.Requests == 0:
		return "no call ended in the measured window"
	case r.OneWay != nil && r.Latency.TotalCount() == 0:
		return fmt.Sprintf("no message published in the measured window was consumed (%d published, %d lost)", r.OneWay.Published, r.OneWay.Lost)
	case 2*failed > r.Requests:
		return fmt.Sprintf("%d of %d calls failed (%s): no latency or throughput figure stands for the service", failed, r.Requests, classesOf(r.ErrorsByClass))
	}
	return ""
}

func classesOf(m map[string]int64) string {
	var parts []string
	for _, c := range ClassNames() {
		if m[c] > 0 && c != ClassOverSLA.String() {
			parts = append(parts, fmt.Sprintf("%s %d", c, m[c]))
		}
	}
	return strings.Join(parts, ", ")
}
