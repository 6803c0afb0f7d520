package report

import (
	"fmt"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/hopbench/hopbench/internal/ranking"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
)

// A measured case is one configuration's completed repetitions, reduced to
// the figures the charts draw: medians over repetitions, and one latency
// histogram merged from all of them.
type measured struct {
	results.Row
	Hist *hdrhistogram.Histogram // every repetition's requests; nil if none recorded

	BodyBytes, RawBodyBytes float64 // request body as sent, and before compression
	WireSent, WireReceived  float64 // at the client, per request; 0 when not counted
	HasWire                 bool

	ClientCPU, NodesCPU float64 // µs per request; NodesCPU sums the services
	NodesRSS            float64 // the largest service's RSS, bytes
	NodesAnonRSS        float64 // the largest service's anonymous RSS, bytes; NaN when not recorded
	// HeapUsed and HeapCommitted are the largest JVM node's heap peaks over
	// the window (results.Heap), bytes; NaN when none was recorded.
	HeapUsed, HeapCommitted float64
	NodeBootMs              []float64
	Brokers                 []brokerFigures

	Series []results.Second // the first completed repetition's
	Steps  []results.Step   // the first completed repetition's (ramps, capacity probes)
	// Search is the first completed repetition's capacity search, if the
	// case is one: its Steps are that search's probes.
	Search *results.SearchResult
	Floor  float64 // the machine's HTTP round trip, µs; 0 when not calibrated
}

type brokerFigures struct {
	Name     string
	CPU, RSS float64 // µs per request, bytes
	Wire     float64 // sent+received per request; 0 when not counted
	HasWire  bool
}

// scenario names everything about a case but its stack: the cases a chart
// puts side by side, and a ranking ranks (ranking.Scenario).
func (m *measured) scenario() string { return ranking.Scenario(m.Row) }

// view is a scenario without its payload.
func (m *measured) view() string { return joinNonEmpty(m.Topology, m.Op, m.Load, m.Options) }

func (m *measured) payload() string { return fmt.Sprintf("%s×%d", m.Model, m.Count) }

func joinNonEmpty(parts ...string) string {
	var out string
	for _, p := range parts {
		if p == "" {
			continue
		}
		if out != "" {
			out += " · "
		}
		out += p
	}
	return out
}

// measure reduces records to cases, in the order cases first appear. Runs
// whose figures do not stand (failed, interrupted, died, partly failed)
// give no figures; their outcomes and flags stay in the summary table.
func measure(recs []results.Record) ([]*measured, error) {
	rows := results.Summarize(recs)
	byCase := map[string]*measured{}
	var out []*measured
	for _, row := range rows {
		m := &measured{Row: row}
		byCase[row.Case] = m
		out = append(out, m)
	}
	acc := map[string]*accumulator{}
	for i := range recs {
		r := &recs[i]
		if !r.Stands() {
			continue
		}
		a := acc[r.Case]
		if a == nil {
			a = &accumulator{}
			acc[r.Case] = a
		}
		if err := a.add(byCase[r.Case], r); err != nil {
			return nil, fmt.Errorf("%s repetition %d: %w", r.Case, r.Repetition, err)
		}
	}
	for c, a := range acc {
		a.finish(byCase[c])
	}
	return out, nil
}

type accumulator struct {
	body, raw, sent, recv, client, nodes, rss, anon []float64
	heapUsed, heapCommitted                         []float64
	brokers                                         map[string]*[3][]float64 // cpu, rss, wire
	brokerOrder                                     []string
	brokerWire                                      map[string]bool
}

func (a *accumulator) add(m *measured, r *results.Record) error {
	if r.Histogram != "" {
		h, err := stats.Decode(r.Histogram)
		if err != nil {
			return err
		}
		if m.Hist == nil {
			m.Hist = stats.NewHistogram()
		}
		m.Hist.Merge(h)
	}
	if m.Series == nil {
		m.Series, m.Steps, m.Search = r.Series, r.Steps, r.Capacity
	}
	if r.Calibration != nil {
		m.Floor = r.Calibration.HTTPRoundTripUs
	}
	a.body = append(a.body, float64(r.RequestBodyBytes))
	a.raw = append(a.raw, float64(max(r.RequestBodyRawBytes, r.RequestBodyBytes)))
	if r.Wire != nil {
		a.sent, a.recv = append(a.sent, r.Wire.Sent), append(a.recv, r.Wire.Received)
	}
	a.client = append(a.client, r.ClientCPUUsPerReq)
	for _, n := range r.Nodes {
		if n.BootMs > 0 {
			m.NodeBootMs = append(m.NodeBootMs, n.BootMs)
		}
	}
	if len(r.Nodes) > 0 {
		cpu, rss, anon := r.Services()
		a.nodes, a.rss = append(a.nodes, cpu), append(a.rss, float64(rss))
		if anon > 0 {
			a.anon = append(a.anon, float64(anon))
		}
	}
	if used, committed := r.HeapPeaks(); committed > 0 {
		a.heapUsed, a.heapCommitted = append(a.heapUsed, float64(used)), append(a.heapCommitted, float64(committed))
	}
	for _, b := range r.Brokers {
		if a.brokers == nil {
			a.brokers, a.brokerWire = map[string]*[3][]float64{}, map[string]bool{}
		}
		f := a.brokers[b.Name]
		if f == nil {
			f = &[3][]float64{}
			a.brokers[b.Name] = f
			a.brokerOrder = append(a.brokerOrder, b.Name)
		}
		f[0], f[1] = append(f[0], b.CPUUsPerReq), append(f[1], float64(b.RSSBytes))
		if b.Wire != nil {
			f[2] = append(f[2], b.Wire.Sent+b.Wire.Received)
			a.brokerWire[b.Name] = true
		}
	}
	return nil
}

func (a *accumulator) finish(m *measured) {
	m.BodyBytes, m.RawBodyBytes = median(a.body), median(a.raw)
	if len(a.sent) > 0 {
		m.HasWire, m.WireSent, m.WireReceived = true, median(a.sent), median(a.recv)
	}
	m.ClientCPU, m.NodesCPU, m.NodesRSS, m.NodesAnonRSS = median(a.client), median(a.nodes), median(a.rss), math.NaN()
	if len(a.anon) > 0 { // records from before anonymous RSS was kept have none
		m.NodesAnonRSS = median(a.anon)
	}
	m.HeapUsed, m.HeapCommitted = math.NaN(), math.NaN()
	if len(a.heapCommitted) > 0 { // Go's nodes, and records from before it was kept, have none
		m.HeapUsed, m.HeapCommitted = median(a.heapUsed), median(a.heapCommitted)
	}
	for _, name := range a.brokerOrder {
		f := a.brokers[name]
		m.Brokers = append(m.Brokers, brokerFigures{Name: name, CPU: median(f[0]), RSS: median(f[1]), Wire: median(f[2]), HasWire: a.brokerWire[name]})
	}
}

// median of vs; 0 for none.
func median(vs []float64) float64 { return results.SpreadOf(vs).Median }
