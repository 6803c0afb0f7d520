package report

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/hopbench/hopbench/internal/results"
)

var spectrumQuantiles = []float64{50, 90, 99, 99.9, 99.99}

// latency draws each scenario's percentile spectrum, a line per stack.
func (b *builder) latency() error {
	s := b.section("latency", "Latency percentile spectrum",
		"Each stack's latency at every percentile, from every repetition's requests merged (HdrHistogram), on log scales: the further right, the rarer the request. × floor divides the median by the machine's HTTP round trip measured before the runs.")
	keys, by := groups(measuredOnly(b.cases), (*measured).scenario)
	for _, k := range keys {
		var lines []line
		var p99s []point
		t := Table{Header: []string{"stack", "requests", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "p99.99 ms", "max ms", "× floor"}}
		for _, c := range by[k] {
			// A capacity search that found no capacity keeps an empty
			// histogram: a spectrum of nothing, which a log scale cannot draw.
			if c.Hist == nil || c.Hist.TotalCount() == 0 {
				continue
			}
			xys, hover := spectrumPoints(c.Hist)
			lines = append(lines, line{Name: c.Stack, XYs: xys, Hover: hover})
			if p, ok := pointOf(c, b.runs, p99Figure); ok {
				p99s = append(p99s, p)
			}
			row := []string{c.Stack, strconv.FormatInt(c.Hist.TotalCount(), 10)}
			for _, q := range spectrumQuantiles {
				row = append(row, ms(float64(c.Hist.ValueAtQuantile(q))))
			}
			row = append(row, ms(float64(c.Hist.Max())), floorMultiple(float64(c.Hist.ValueAtQuantile(50)), c.Floor))
			t.Rows = append(t.Rows, row)
		}
		if len(lines) == 0 {
			b.missing("%s: no latency histogram in the records", k)
			continue
		}
		if err := b.add(s, finding("p99 (median of runs)", false, p99s, msWords), "", t)(spectrumChart(k, lines)); err != nil {
			return err
		}
	}
	return nil
}

func floorMultiple(us, floor float64) string {
	if floor <= 0 {
		return "—"
	}
	return num(us/floor, 1)
}

// latencyByPayload draws p50 and p99 per stack, a bar per payload, and the
// median as a multiple of the floor.
func (b *builder) latencyByPayload() error {
	s := b.section("by-payload", "Median and p99 by stack and payload",
		"Medians over repetitions. The second chart divides each median by the machine's HTTP round trip on loopback: how far above the floor each stack sits.")
	keys, by := groups(measuredOnly(b.cases), (*measured).view)
	for _, k := range keys {
		cases := by[k]
		stacks, payloads := distinct(cases, stackOf), distinct(cases, (*measured).payload)
		find := index(cases)
		var lat, floors []bars
		var p50s, multiples []string
		t := Table{Header: []string{"stack", "payload", "p50 ms", "p99 ms", "× floor"}}
		haveFloor := false
		for _, pl := range payloads {
			p50, p99, fl := bars{Name: pl + " p50"}, bars{Name: pl + " p99"}, bars{Name: pl}
			var pts, fls []point
			for _, st := range stacks {
				c := find[st+"\x00"+pl]
				if c == nil {
					p50.Values, p99.Values, fl.Values = append(p50.Values, math.NaN()), append(p99.Values, math.NaN()), append(fl.Values, math.NaN())
					continue
				}
				p50.Values, p99.Values = append(p50.Values, c.P50Us.Median/1000), append(p99.Values, c.P99Us.Median/1000)
				f := math.NaN()
				if c.Floor > 0 {
					f, haveFloor = c.P50Us.Median/c.Floor, true
				}
				fl.Values = append(fl.Values, f)
				fls = append(fls, point{stack: st, v: f})
				if p, ok := pointOf(c, b.runs, p50Figure); ok {
					pts = append(pts, p)
				}
				t.Rows = append(t.Rows, []string{st, pl, ms(c.P50Us.Median), ms(c.P99Us.Median), floorMultiple(c.P50Us.Median, c.Floor)})
			}
			lat, floors = append(lat, p50, p99), append(floors, fl)
			p50s = append(p50s, at(pl, finding("p50", false, pts, msWords)))
			multiples = append(multiples, at(pl, finding("median as a multiple of the floor", false, fls, func(v float64) string { return "×" + num(v, 1) })))
		}
		if err := b.add(s, strings.Join(p50s, " "), "", t)(stackBarChart(k+": p50 and p99", "latency (ms)", stacks, lat)); err != nil {
			return err
		}
		if !haveFloor {
			b.missing("%s: no floor to compare with (the runs were not calibrated: drop --no-calibrate)", k)
			continue
		}
		if err := b.add(s, strings.Join(multiples, " "), "", t)(stackBarChart(k+": median as a multiple of the floor", "× HTTP round trip", stacks, floors)); err != nil {
			return err
		}
	}
	return nil
}

// index finds a case by stack and payload.
func index(cases []*measured) map[string]*measured {
	m := map[string]*measured{}
	for _, c := range cases {
		m[c.Stack+"\x00"+c.payload()] = c
	}
	return m
}

// seconds draws each scenario's throughput second by second.
func (b *builder) seconds() error {
	s := b.section("seconds", "Throughput second by second",
		"Requests completed in each second of the measured window (first repetition), to show warm-up, drift and stalls that an average hides.")
	keys, by := groups(measuredOnly(b.cases), (*measured).scenario)
	for _, k := range keys {
		var lines []line
		var steadiness []point
		t := Table{Header: []string{"stack", "seconds", "req/s min", "req/s median", "req/s max", "p99 ms worst second"}}
		for _, c := range by[k] {
			if len(c.Series) == 0 {
				continue
			}
			var xys plotter.XYs
			var rps []float64
			var worst int64
			for _, sec := range c.Series {
				xys = append(xys, plotter.XY{X: float64(sec.T), Y: float64(sec.Requests)})
				rps = append(rps, float64(sec.Requests))
				worst = max(worst, sec.P99Us)
			}
			lines = append(lines, line{Name: c.Stack, XYs: xys})
			sp := results.SpreadOf(rps)
			steadiness = append(steadiness, point{stack: c.Stack, v: sp.Median})
			t.Rows = append(t.Rows, []string{c.Stack, strconv.Itoa(len(c.Series)), num(sp.Min, 0), num(sp.Median, 0), num(sp.Max, 0), ms(float64(worst))})
		}
		if len(lines) == 0 {
			continue
		}
		if err := b.add(s, finding("requests in the median second", true, steadiness, func(v float64) string { return num(v, 0) }), "", t)(linesChart(k, "second", "requests", lines)); err != nil {
			return err
		}
	}
	return nil
}

// ramps draws throughput and success within the SLA against the load in
// force, for ramp runs.
func (b *builder) ramps() error {
	ramped := measuredWhere(b.cases, func(c *measured) bool { return len(c.Steps) > 0 && c.Search == nil })
	if len(ramped) == 0 {
		return nil
	}
	s := b.section("ramps", "Ramps: throughput and success within the SLA",
		"Each step of a ramp (first repetition): requests per second completed, and the share of requests that succeeded within the SLA, against the clients or rate in force.")
	keys, by := groups(ramped, (*measured).scenario)
	for _, k := range keys {
		var rps, ok []line
		var peaks, lastOK []point
		t := Table{Header: []string{"stack", "step", "req/s", "within SLA %", "p99 ms"}}
		for _, c := range by[k] {
			peak := point{stack: c.Stack}
			var a, w plotter.XYs
			for _, st := range c.Steps {
				a, w = append(a, plotter.XY{X: st.Value, Y: st.RPS}), append(w, plotter.XY{X: st.Value, Y: 100 * st.WithinSLA})
				t.Rows = append(t.Rows, []string{c.Stack, num(st.Value, 0), num(st.RPS, 0), num(100*st.WithinSLA, 1), ms(float64(st.Latency.P99Us))})
				peak.v = math.Max(peak.v, st.RPS)
			}
			if n := len(c.Steps); n > 0 {
				peaks, lastOK = append(peaks, peak), append(lastOK, point{stack: c.Stack, v: 100 * c.Steps[n-1].WithinSLA})
			}
			rps, ok = append(rps, line{Name: c.Stack, XYs: a}), append(ok, line{Name: c.Stack, XYs: w})
		}
		if err := b.add(s, finding("peak throughput", true, peaks, rpsWords), "", t)(linesChart(k+": throughput", "load in force", "req/s", rps)); err != nil {
			return err
		}
		if err := b.add(s, finding("share within the SLA at the last step", true, lastOK, func(v float64) string { return num(v, 1) + " %" }), "", t)(linesChart(k+": success within the SLA", "load in force", "% of requests", ok)); err != nil {
			return err
		}
	}
	return nil
}

// bytes draws what a request costs in bytes at the client: the body before
// and after compression, and what crossed the connection each way.
func (b *builder) bytes() error {
	s := b.section("bytes", "Bytes per request",
		"At the load generator, per request (medians). Body: the encoded request; as sent: after the stack's own compression (gRPC compresses inside its library, so only its wire bytes show it). On the wire: every byte the client's connections carried, headers, framing and TLS included, so headers & framing = request on the wire − body as sent. Broker stacks' wire figures are between the client and its broker.")
	keys, by := groups(measuredOnly(b.cases), func(c *measured) string { return joinNonEmpty(c.Op, c.payload(), c.Options) })
	for _, k := range keys {
		cases := firstPerStack(by[k])
		cats := distinct(cases, stackOf)
		body, sent, wireOut, wireIn := bars{Name: "body"}, bars{Name: "body as sent"}, bars{Name: "request on the wire"}, bars{Name: "reply on the wire"}
		t := Table{Header: []string{"stack", "body B", "as sent B", "request wire B", "headers & framing B", "reply wire B"}}
		var wire []point
		for _, c := range cases {
			body.Values, sent.Values = append(body.Values, c.RawBodyBytes), append(sent.Values, c.BodyBytes)
			out, in, framing := math.NaN(), math.NaN(), math.NaN()
			if c.HasWire {
				out, in, framing = c.WireSent, c.WireReceived, c.WireSent-c.BodyBytes
			}
			wireOut.Values, wireIn.Values = append(wireOut.Values, out), append(wireIn.Values, in)
			wire = append(wire, point{stack: c.Stack, v: out + in})
			t.Rows = append(t.Rows, []string{c.Stack, num(c.RawBodyBytes, 0), num(c.BodyBytes, 0), num(out, 0), num(framing, 0), num(in, 0)})
		}
		caption := "Figures from the " + cases[0].Topology + " · " + cases[0].Load + " runs; a client's bytes do not depend on what lies behind the service."
		if err := b.add(s, finding("bytes on the wire per request, both ways", false, wire, bytesWords), caption, t)(stackBarChart(k+": bytes per request", "bytes", cats, []bars{body, sent, wireOut, wireIn})); err != nil {
			return err
		}
	}
	return nil
}

// firstPerStack keeps each stack's first case (the bytes a client sends do
// not change with topology or load).
func firstPerStack(cases []*measured) []*measured {
	seen := map[string]bool{}
	var out []*measured
	for _, c := range cases {
		if !seen[c.Stack] {
			seen[c.Stack] = true
			out = append(out, c)
		}
	}
	return out
}

// resources draws CPU per request and memory for the client, the services
// and any broker.
func (b *builder) resources() error {
	s := b.section("resources", "CPU per request and memory",
		"CPU per request: the process's CPU time over the measured window divided by the requests the client completed, for the load generator, the services together and the broker. Memory: resident set size at the end of the window, of the largest service and of the broker; a service's anonymous RSS leaves out the pages of the binary every node maps (about 30 MiB of hopbench's), so it is what the stack and its work hold. Read CPU per request beside the rate it was measured at: a broker's background work weighs more at low rates.")
	keys, by := groups(measuredOnly(b.cases), (*measured).scenario)
	for _, k := range keys {
		cases := by[k]
		stacks := distinct(cases, stackOf)
		client, nodes, broker := bars{Name: "load generator"}, bars{Name: "services"}, bars{Name: "broker"}
		nodeRSS, nodeAnon, brokerRSS := bars{Name: "largest service"}, bars{Name: "largest service, anonymous"}, bars{Name: "broker"}
		t := Table{Header: []string{"stack", "req/s", "client µs/req", "services µs/req", "broker µs/req", "largest service MiB", "its anonymous MiB", "broker MiB"}}
		for _, c := range cases {
			bc, br := math.NaN(), math.NaN()
			for _, x := range c.Brokers {
				bc, br = x.CPU, x.RSS
			}
			client.Values, nodes.Values, broker.Values = append(client.Values, c.ClientCPU), append(nodes.Values, c.NodesCPU), append(broker.Values, bc)
			nodeRSS.Values, nodeAnon.Values, brokerRSS.Values = append(nodeRSS.Values, c.NodesRSS/(1<<20)), append(nodeAnon.Values, c.NodesAnonRSS/(1<<20)), append(brokerRSS.Values, br/(1<<20))
			t.Rows = append(t.Rows, []string{c.Stack, num(c.RPS.Median, 0), num(c.ClientCPU, 1), num(c.NodesCPU, 1), num(bc, 1), mib(c.NodesRSS), mib(c.NodesAnonRSS), mib(br)})
		}
		if err := b.add(s, finding("CPU per request of services and broker", false, b.pointsOf(cases, cpuFigure), usWords), "", t)(stackBarChart(k+": CPU per request", "µs of CPU per request", stacks, []bars{client, nodes, broker})); err != nil {
			return err
		}
		if err := b.add(s, finding("memory, largest service and broker", false, b.pointsOf(cases, memoryFigure), mibWords), "", t)(stackBarChart(k+": memory", "RSS (MiB)", stacks, []bars{nodeRSS, nodeAnon, brokerRSS})); err != nil {
			return err
		}
	}
	return nil
}

// boot draws how long a service takes from spawn to its first good reply.
func (b *builder) boot() error {
	byStack := map[string][]float64{}
	var stacks []string
	for _, c := range b.cases {
		if len(c.NodeBootMs) == 0 {
			continue
		}
		if _, ok := byStack[c.Stack]; !ok {
			stacks = append(stacks, c.Stack)
		}
		byStack[c.Stack] = append(byStack[c.Stack], c.NodeBootMs...)
	}
	if len(stacks) == 0 {
		b.missing("boot time: no node boot times in the records")
		return nil
	}
	s := b.section("boot", "Boot time", "From spawning a service's process to its first good reply, over every service of every run.")
	med := bars{Name: "median"}
	t := Table{Header: []string{"stack", "services booted", "min ms", "median ms", "max ms"}}
	var boots []point
	for _, st := range stacks {
		sp := results.SpreadOf(byStack[st])
		boots = append(boots, point{stack: st, v: sp.Median})
		med.Values = append(med.Values, sp.Median)
		t.Rows = append(t.Rows, []string{st, strconv.Itoa(len(byStack[st])), num(sp.Min, 1), num(sp.Median, 1), num(sp.Max, 1)})
	}
	return b.add(s, finding("median boot time", false, boots, func(v float64) string { return num(v, 1) + " ms" }), "", t)(stackBarChart("Boot time by stack", "ms", stacks, []bars{med}))
}
