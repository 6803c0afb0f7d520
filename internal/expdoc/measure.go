package expdoc

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
)

// Measures the page may read of a run beyond the verdicts' own
// (reproduce.Measures, read as the verdicts read them): each is a figure
// of one run, in the unit its name or comment gives.
var ownMeasures = map[string]func(r *results.Record) (float64, bool){
	"p99": func(r *results.Record) (float64, bool) { return float64(r.P99Us) / 1000, r.P99Us > 0 }, // ms
	// cpu is the services' CPU per request, summed, µs.
	"cpu": func(r *results.Record) (float64, bool) { c, _, _ := r.Services(); return c, len(r.Nodes) > 0 },
	// node_rss is the largest service's RSS at the window's end, MiB.
	"node_rss": func(r *results.Record) (float64, bool) {
		_, rss, _ := r.Services()
		return float64(rss) / (1 << 20), rss > 0
	},
	// mapped_rss is the largest service's RSS less its anonymous part,
	// MiB: the pages of the binary it maps.
	"mapped_rss": func(r *results.Record) (float64, bool) {
		_, rss, anon := r.Services()
		return float64(rss-anon) / (1 << 20), rss > 0 && anon > 0
	},
	// boot_max_ms is the slowest node's boot, ms.
	"boot_max_ms": func(r *results.Record) (float64, bool) {
		var most float64
		for _, n := range r.Nodes {
			most = max(most, n.BootMs)
		}
		return most, len(r.Nodes) > 0
	},
	// reply_rps is replies per second, late ones included, of a run
	// whatever its errors (rps, the verdicts', is of runs without).
	"reply_rps": func(r *results.Record) (float64, bool) { return r.RPS, r.Completed() },
	// reply_body is the body of the run's last good reply, B, of any run
	// that had one: a run its node's limit killed after a reply included.
	"reply_body": func(r *results.Record) (float64, bool) { return float64(r.ResponseBodyBytes), r.ResponseBodyBytes > 0 },
	// request_body is the request's body as the stack sends it (a
	// one-way message's, its stamp aside), B.
	"request_body": func(r *results.Record) (float64, bool) { return float64(r.RequestBodyBytes), r.RequestBodyBytes > 0 },
	// first_p50 is a feed's time to its first message at p50, ms;
	// messages_per_s its messages received a second.
	"first_p50": func(r *results.Record) (float64, bool) {
		if r.FirstMessage == nil {
			return 0, false
		}
		return float64(r.FirstMessage.P50Us) / 1000, true
	},
	"messages_per_s": func(r *results.Record) (float64, bool) { return r.MessagesPerS, r.FirstMessage != nil },
	"requests":       func(r *results.Record) (float64, bool) { return float64(r.Requests), true },
	// proxy_rss is the mean RSS of the run's proxies at the window's end,
	// MiB.
	"proxy_rss": func(r *results.Record) (float64, bool) {
		t := r.ProxyTotals()
		return float64(t.RSSBytes) / float64(max(t.N, 1)) / (1 << 20), t.RSSBytes > 0
	},
	// proxy_cpu_each is the mean CPU of the run's proxies, µs a request
	// (proxy_cpu, the verdicts', sums them).
	"proxy_cpu_each": func(r *results.Record) (float64, bool) {
		t := r.ProxyTotals()
		return t.CPUUsPerReq / float64(max(t.N, 1)), t.CPUUsPerReq > 0
	},
	// proxied_hops is how many hops the run's proxies stood on, what a
	// mesh's added latency is divided by (results.Record.ProxiedHops, as
	// the report reads it).
	"proxied_hops": func(r *results.Record) (float64, bool) {
		h := r.ProxiedHops()
		return float64(h), h > 0
	},
	// capacity_rps is a capacity search's capacity at its SLA, req/s, only
	// when the search bracketed it (not cut short, not a lower bound): its
	// calls may have failed within the search's max_errors.
	"capacity_rps": func(r *results.Record) (float64, bool) {
		c := r.Capacity
		return r.CapacityRPS, c != nil && !c.CutShort && !c.LowerBound && r.CapacityRPS > 0
	},
	// A one-way run's accounting (docs/messaging.md): messages published,
	// lost, duplicated and out of order (counts, warm-up included); its
	// publishes' p50, ms; its drain, ms. (delivered_rps is the verdicts'.)
	"published":    oneWay(func(o *results.OneWay) float64 { return float64(o.Published) }),
	"lost":         oneWay(func(o *results.OneWay) float64 { return float64(o.Lost) }),
	"duplicated":   oneWay(func(o *results.OneWay) float64 { return float64(o.Duplicated) }),
	"out_of_order": oneWay(func(o *results.OneWay) float64 { return float64(o.OutOfOrder) }),
	"drain_ms":     oneWay(func(o *results.OneWay) float64 { return o.DrainMs }),
	"publish_p50": func(r *results.Record) (float64, bool) {
		if r.OneWay == nil || r.OneWay.Publish == nil {
			return 0, false
		}
		return float64(r.OneWay.Publish.P50Us) / 1000, true
	},
	"errors": func(r *results.Record) (float64, bool) { return float64(r.Errors), true },
	// net_rtt is the emulated network's round trip measured before the
	// run, ms; net_dgram_rtt a datagram's (in process only); net_mbit its
	// throughput, Mbit/s.
	"net_rtt": func(r *results.Record) (float64, bool) { return netFigure(r, true) },
	"net_dgram_rtt": func(r *results.Record) (float64, bool) {
		if r.Network == nil || r.Network.DatagramRTTUs == 0 {
			return 0, false
		}
		return r.Network.DatagramRTTUs / 1000, true
	},
	"net_mbit": func(r *results.Record) (float64, bool) { return netFigure(r, false) },
	// tcp_rtt and http_rtt are the machine's floor measured before the
	// experiment, µs; generator_cpu the load engine's CPU per request, µs.
	"tcp_rtt":       calibration(func(c *results.Calibration) float64 { return c.TCPRoundTripUs }),
	"http_rtt":      calibration(func(c *results.Calibration) float64 { return c.HTTPRoundTripUs }),
	"generator_cpu": calibration(func(c *results.Calibration) float64 { return c.GeneratorCPUUsPerReq }),
	// host_cpu is what the run had on every host together, CPU µs per
	// request.
	"host_cpu": func(r *results.Record) (float64, bool) {
		var sum float64
		for _, h := range r.Hosts {
			sum += h.CPUUsPerReq
		}
		return sum, len(r.Hosts) > 0
	},
}

func netFigure(r *results.Record, rtt bool) (float64, bool) {
	if r.Network == nil {
		return 0, false
	}
	if rtt {
		return r.Network.RTTUs / 1000, true
	}
	return r.Network.Mbit, true
}

func calibration(f func(c *results.Calibration) float64) func(r *results.Record) (float64, bool) {
	return func(r *results.Record) (float64, bool) {
		if r.Calibration == nil {
			return 0, false
		}
		return f(r.Calibration), true
	}
}

// figure is one run's figure of measure, and whether the run gives one.
// Besides ownMeasures and the verdicts' measures it reads what a host's
// interfaces sent per request, B, as "host_sent:HOST", and a node's phase,
// µs, as "phase:NODE:PHASE:STAT" (NODE an index, or leaf for the last;
// STAT mean or p50): "phase:0:downstream:p50". A run that did not complete, or whose calls
// failed, gives no latency, throughput or phase figure, as for the
// verdicts.
func figure(r *results.Record, measure string) (float64, bool, error) {
	if f, ok := ownMeasures[measure]; ok {
		v, ok := f(r)
		return v, ok && (!timed(measure) || r.Completed() && (r.Errors == 0 || measure == "reply_rps" || measure == "capacity_rps")), nil
	}
	if rest, ok := strings.CutPrefix(measure, "phase:"); ok {
		return phase(r, rest)
	}
	if host, ok := strings.CutPrefix(measure, "host_sent:"); ok {
		return hostSent(r, host)
	}
	if _, ok := reproduce.Measures[measure]; !ok {
		return 0, false, fmt.Errorf("unknown measure %q", measure)
	}
	one := reproduce.Measured{Records: []results.Record{*r}}
	v, err := one.Value(measure, map[string]string{"runtime": r.RuntimeName()})
	if err != nil {
		return 0, false, nil // this run gives no figure (failed calls, not completed)
	}
	return v.V, true, nil
}

// timed says whether an own measure is of the run's window, which a run
// that failed does not have; the machine's and network's figures were
// measured before it.
func timed(measure string) bool {
	return !slices.Contains([]string{"reply_body", "request_body", "requests", "errors", "published", "lost", "duplicated", "out_of_order", "net_rtt", "net_dgram_rtt", "net_mbit", "tcp_rtt", "http_rtt", "generator_cpu"}, measure)
}

func phase(r *results.Record, spec string) (float64, bool, error) {
	parts := strings.Split(spec, ":")
	if len(parts) != 3 || parts[2] != "mean" && parts[2] != "p50" {
		return 0, false, fmt.Errorf("phase %q: want phase:NODE:PHASE:mean or :p50", spec)
	}
	if !r.Completed() || r.Errors > 0 || len(r.Nodes) == 0 {
		return 0, false, nil
	}
	i := len(r.Nodes) - 1
	if parts[0] != "leaf" {
		n, err := strconv.Atoi(parts[0])
		if err != nil {
			return 0, false, fmt.Errorf("phase %q: node %q is not an index or leaf", spec, parts[0])
		}
		i = n
	}
	for _, n := range r.Nodes {
		if n.Index != i || n.Stats == nil {
			continue
		}
		p, ok := n.Stats.Phases[parts[1]]
		if parts[2] == "p50" {
			return float64(p.P50Us), ok, nil
		}
		return p.MeanUs, ok, nil
	}
	return 0, false, nil
}

func hostSent(r *results.Record, name string) (float64, bool, error) {
	if !r.Completed() || r.Errors > 0 {
		return 0, false, nil
	}
	for _, h := range r.Hosts {
		if h.Name == name && h.NetPerReq != nil {
			return h.NetPerReq.Sent, true, nil
		}
	}
	return 0, false, nil
}

// figures are the figures of measure of the runs where picks, of those
// that give one; an error when none does.
func (d *Doc) figures(name, measure string, where []string) ([]float64, error) {
	recs, err := d.records(name, where)
	if err != nil {
		return nil, err
	}
	var vs []float64
	for i := range recs {
		v, ok, err := figure(&recs[i], measure)
		if err != nil {
			return nil, err
		}
		if ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("%s: no run with %s gives a figure of %s (%d runs picked)", name, strings.Join(where, " "), measure, len(recs))
	}
	return vs, nil
}

// spread is the median, least and most of measure over the runs where
// picks.
func (d *Doc) spread(name, measure string, where ...string) (results.Spread, error) {
	vs, err := d.figures(name, measure, where)
	return results.SpreadOf(vs), err
}

// total is the sum of measure over the runs where picks: a one-way
// experiment's messages lost, over all its runs.
func (d *Doc) total(name, measure string, where ...string) (float64, error) {
	vs, err := d.figures(name, measure, where)
	var sum float64
	for _, v := range vs {
		sum += v
	}
	return sum, err
}

// median is the median of measure over the runs where picks.
func (d *Doc) median(name, measure string, where ...string) (float64, error) {
	s, err := d.spread(name, measure, where...)
	return s.Median, err
}

// span is the median, least and most of the cases' medians of measure,
// over the cases of the runs where picks: "the JVM's nodes boot in 1.4
// to 3.1 s".
func (d *Doc) span(name, measure string, where ...string) (results.Spread, error) {
	recs, err := d.records(name, where)
	if err != nil {
		return results.Spread{}, err
	}
	var medians []float64
	for _, c := range casesOf(recs) {
		vs, err := d.figures(name, measure, append(slices.Clone(where), "case="+c))
		if err != nil {
			return results.Spread{}, err
		}
		medians = append(medians, results.SpreadOf(vs).Median)
	}
	if len(medians) == 0 {
		return results.Spread{}, fmt.Errorf("%s: no run with %s", name, strings.Join(where, " "))
	}
	return results.SpreadOf(medians), nil
}

// casesOf are the records' cases, in the order they first appear.
func casesOf(recs []results.Record) []string {
	var cs []string
	for _, r := range recs {
		if !slices.Contains(cs, r.Case) {
			cs = append(cs, r.Case)
		}
	}
	return cs
}

// oneWay reads a one-way run's figure; none for calls.
func oneWay(f func(*results.OneWay) float64) func(*results.Record) (float64, bool) {
	return func(r *results.Record) (float64, bool) {
		if r.OneWay == nil || !r.Completed() {
			return 0, false
		}
		return f(r.OneWay), true
	}
}
