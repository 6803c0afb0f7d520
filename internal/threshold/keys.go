package threshold

import (
	"slices"

	"github.com/hopbench/hopbench/internal/check"
	"github.com/hopbench/hopbench/internal/results"
)

// key is a figure a threshold may hold to a limit: its name, unit, what
// it reads from a run's record, and what a run needs to record it.
type key struct {
	name    string
	unit    check.Unit
	example string // a limit's value, for messages
	// floor says the figure is better higher: a limit on it is a floor,
	// "> 5000", in messages and the schema's examples.
	floor bool
	doc   string
	// needs says why a case of subject does not record the figure; ""
	// when it does.
	needs func(Subject) string
	// of is the figure of a run, or why the run has none.
	of func(*results.Record) (float64, string)
}

// Subject is what is known of a case before it runs: enough to refuse
// a threshold on a figure it will not record.
type Subject struct {
	Stack, Topology string
	// Capacity: its load is a capacity search. Nodes: hopbench starts
	// (and measures) its nodes, as run does and load does not.
	Capacity, Nodes bool
}

var keys = []key{
	{"p50", check.Micros, "10ms", false, "latency at p50, from each request's intended send time", nil, latency(func(f *results.Figures) int64 { return f.P50Us })},
	{"p99", check.Micros, "10ms", false, "latency at p99", nil, latency(func(f *results.Figures) int64 { return f.P99Us })},
	{"p99.9", check.Micros, "10ms", false, "latency at p99.9", nil, latency(func(f *results.Figures) int64 { return f.P999Us })},
	{"errors", check.Percent, "0.1%", false, "calls that failed or replied later than the SLA, % of requests (a capacity search's: at its capacity)", nil, errorRate},
	{"rps", check.PerSec, "5000", true, "replies a second, late ones included (a capacity search's: at its capacity)", nil, standing(func(r *results.Record) float64 { return r.RPS })},
	{"good_rps", check.PerSec, "5000", true, "replies within the SLA a second (goodput)", nil, standing(func(r *results.Record) float64 { return r.GoodRPS })},
	{"capacity", check.PerSec, "5000", true, "a capacity search's capacity: the highest rate whose percentile met its SLA", needsCapacity, capacity},
	{"bytes", check.Bytes, "2KB", false, "bytes on the client's connections per request, sent and received", nil, wireBytes},
	{"cpu", check.Micros, "200µs", false, "the services' CPU per request, summed over the topology's nodes", needsNodes, standing(func(r *results.Record) float64 { c, _, _ := r.Services(); return c })},
	{"client_cpu", check.Micros, "50µs", false, "the load generator's own CPU per request", nil, standing(func(r *results.Record) float64 { return r.ClientCPUUsPerReq })},
	{"memory", check.Bytes, "100MB", false, "the largest node's peak RSS", needsNodes, standing(peakRSS)},
}

// Keys are the threshold keys, in the order documented.
func Keys() []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return names
}

func lookup(name string) (key, bool) {
	i := slices.IndexFunc(keys, func(k key) bool { return k.name == name })
	if i < 0 {
		return key{}, false
	}
	return keys[i], true
}

func needsCapacity(s Subject) string {
	if !s.Capacity {
		return "only a capacity search (a capacity load) records a capacity"
	}
	return ""
}

func needsNodes(s Subject) string {
	if !s.Nodes {
		return "hopbench load does not measure the node it drives (hopbench run does); client_cpu is the generator's"
	}
	return ""
}

// absent says why a run's figures do not stand: it did not complete, its
// calls failed, or a flag withholds them; "" when they stand.
func absent(r *results.Record) string {
	switch {
	case r.Stands():
		return ""
	case r.Completed():
		return r.Flags.String()
	case r.Reason != "":
		return r.Outcome + ": " + r.Reason
	}
	return r.Outcome
}

// standing reads a figure from runs whose figures stand.
func standing(of func(*results.Record) float64) func(*results.Record) (float64, string) {
	return func(r *results.Record) (float64, string) {
		if why := absent(r); why != "" {
			return 0, why
		}
		if c := r.Capacity; c != nil && (c.Step < 0 || c.Step >= len(r.Steps)) {
			return 0, "no rate met the capacity search's SLA: no figure at a capacity"
		}
		return of(r), ""
	}
}

func latency(of func(*results.Figures) int64) func(*results.Record) (float64, string) {
	return standing(func(r *results.Record) float64 { return float64(of(&r.Figures)) })
}

// errorRate is failed and late calls over requests, for every run that
// made calls, partly failed or not (those are what it is for); a capacity
// search's at its capacity, as its rate and latency are.
func errorRate(r *results.Record) (float64, string) {
	if !r.Completed() && r.Outcome != results.OutcomeCallsFailed {
		return 0, absent(r)
	}
	errs, reqs := r.Errors, r.Requests
	if c := r.Capacity; c != nil {
		if c.Step < 0 || c.Step >= len(r.Steps) {
			return 0, "no rate met the capacity search's SLA: no rate to read errors at"
		}
		errs, reqs = r.Steps[c.Step].Errors, r.Steps[c.Step].Requests
	}
	if reqs == 0 {
		return 0, "no requests were made"
	}
	return 100 * float64(errs) / float64(reqs), ""
}

func capacity(r *results.Record) (float64, string) {
	switch {
	case absent(r) != "":
		return 0, absent(r)
	case r.Capacity == nil:
		return 0, "not a capacity search"
	}
	return r.Capacity.RPS, ""
}

func wireBytes(r *results.Record) (float64, string) {
	if why := absent(r); why != "" {
		return 0, why
	}
	if r.Wire == nil {
		return 0, "its wire bytes were not recorded"
	}
	return r.Wire.Sent + r.Wire.Received, ""
}

func peakRSS(r *results.Record) float64 {
	var peak int64
	for _, n := range r.Nodes {
		peak = max(peak, n.PeakRSS)
	}
	return float64(peak)
}

// sample is a limit on k, for messages and the schema: "< 10ms", "> 5000".
func (k key) sample() string {
	if k.floor {
		return "> " + k.example
	}
	return "< " + k.example
}
