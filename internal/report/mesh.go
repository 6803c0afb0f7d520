package report

import (
	"math"
	"slices"
	"strconv"

	"github.com/hopbench/hopbench/internal/results"
)

// proxyFigures are a case's proxies over its runs that ended ok: how many
// hops they stood on, each proxy's CPU per request, RSS and bytes on its
// legs per request (medians over runs of the proxies' mean).
type proxyFigures struct {
	hops           int
	cpu, rss, legs []float64
}

func proxiesByCase(recs []results.Record) map[string]*proxyFigures {
	out := map[string]*proxyFigures{}
	for _, r := range recs {
		p := results.ProxyOf(r.Options)
		if p == results.NoProxy || r.Outcome != results.OutcomeOK || len(r.Proxies) == 0 {
			continue
		}
		f := out[r.Case]
		if f == nil {
			f = &proxyFigures{hops: r.ProxiedHops()}
			out[r.Case] = f
		}
		t := r.ProxyTotals()
		n := float64(t.N)
		f.cpu, f.rss = append(f.cpu, t.CPUUsPerReq/n), append(f.rss, float64(t.RSSBytes)/n)
		if t.LegsBytes > 0 {
			f.legs = append(f.legs, t.LegsBytes/n)
		}
	}
	return out
}

// mesh sets each case run through proxies beside the same case without
// them: the ratio of p50s with its interval and runs, the latency each
// proxied hop adds, and each proxy's CPU per 1 000 req/s and RSS.
func (b *builder) mesh(recs []results.Record) error {
	var with []*measured
	for _, c := range measuredOnly(b.cases) {
		if results.ProxyOf(c.Options) != results.NoProxy {
			with = append(with, c)
		}
	}
	pairs := twinsOf(with, b.cases, func(o string) []string { return []string{withoutWord(o, results.ProxyOption)} })
	if len(pairs) == 0 {
		return nil
	}
	p50s, caps, figs := okP50s(recs), capacities(recs), proxiesByCase(recs)
	s := b.section("mesh", "What the mesh costs",
		"Each case run through proxies (proxy:KIND/MODE/xSIDECARS[/mtls]: x1 one proxy a hop, x2 an outbound sidecar beside the caller and an inbound one beside the callee) beside the same case without them. p50s are medians over the runs that ended ok; with/without is their ratio with its 95% bootstrap interval and the runs on each side; added a hop is the difference of the medians over the proxied hops (a broker stack's proxies stand in front of its broker, which every call crosses four times, its request and its reply each published and delivered, where a service hop's proxies are crossed twice: its hops are its calls, one a node, and not a service hop's figure). A capacity search's row sets its capacity at the SLA without and with proxies, and their ratio, instead. A proxy's CPU per 1 000 req/s is its CPU per request (the scheduler's time on a CPU over the window) times 1 000 (vCPU, as Istio states a sidecar's), and its RSS resident memory at the window's end; and the bytes its connections sent and received per request, both its legs together (the kernel's tcp_info: TLS and HTTP framing included; the client's wire bytes a request, beside, are one leg one way each); each the mean over the case's proxies, median over its runs. Published figures (Envoy under Istio, MeshInsight, Linkerd) are in Paper vs here as context, for other proxies on other machines.")
	byView := map[string][]twinPair{}
	var views []string
	for _, p := range pairs {
		v := joinNonEmpty(p.without.Topology, p.without.Op, p.without.payload(), p.without.Load)
		if byView[v] == nil {
			views = append(views, v)
		}
		byView[v] = append(byView[v], p)
	}
	for _, v := range views {
		if err := b.meshView(s, v, byView[v], p50s, caps, figs); err != nil {
			return err
		}
	}
	return nil
}

// okMedian is the median of runs' figures; NaN (shown –) for none.
func okMedian(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	return results.SpreadOf(vs).Median
}

// capacities are the capacities, req/s, of each capacity search's runs,
// by case.
func capacities(recs []results.Record) map[string][]float64 {
	out := map[string][]float64{}
	for _, r := range recs {
		if r.Capacity != nil && r.CapacityRPS > 0 {
			out[r.Case] = append(out[r.Case], r.CapacityRPS)
		}
	}
	return out
}

// meshView is one scenario's table and chart: a capacity search's rows
// set its capacity with and without proxies beside their ratio (the
// latency of its probes is the search's, not a hop's).
func (b *builder) meshView(s *Section, view string, pairs []twinPair, p50s, caps map[string][]float64, figs map[string]*proxyFigures) error {
	t := Table{Header: []string{"stack", "proxies", "hops", "p50 ms without (capacity)", "with", "with/without p50 (capacity)", "added a hop ms", "CPU per 1 000 req/s, vCPU a proxy", "RSS MiB a proxy", "legs bytes/req a proxy"}}
	var stacks, proxies []string
	added := map[string]map[string]float64{}
	for _, p := range pairs {
		name := results.ProxyOf(p.with.Options)
		f := figs[p.with.Case]
		// The medians the ratio is of: runs that ended ok.
		without, with := okMedian(p50s[p.without.Case]), okMedian(p50s[p.with.Case])
		hops, perHop, cpu, rss, legs := "–", math.NaN(), "–", "–", "–"
		if f != nil && f.hops > 0 {
			hops = strconv.Itoa(f.hops)
			perHop = (with - without) / float64(f.hops)
			cpu, rss = num(results.SpreadOf(f.cpu).Median/1000, 3), mib(results.SpreadOf(f.rss).Median)
			if len(f.legs) > 0 {
				legs = num(results.SpreadOf(f.legs).Median, 0)
			}
		}
		row := []string{p.with.Stack, name, hops, num(without/1000, 3), num(with/1000, 3),
			ratioCell(p50s[p.with.Case], p50s[p.without.Case]), num(perHop/1000, 3), cpu, rss, legs}
		if p.with.Searched {
			perHop = math.NaN()
			row[3], row[4], row[5], row[6] = p.without.CapacityCell()+" req/s", p.with.CapacityCell()+" req/s", "capacity "+ratioCell(caps[p.with.Case], caps[p.without.Case]), "–"
		}
		t.Rows = append(t.Rows, row)
		if !slices.Contains(stacks, p.with.Stack) {
			stacks = append(stacks, p.with.Stack)
		}
		if !slices.Contains(proxies, name) {
			proxies = append(proxies, name)
		}
		if added[name] == nil {
			added[name] = map[string]float64{}
		}
		added[name][p.with.Stack] = perHop / 1000
	}
	var series []bars
	for _, name := range proxies {
		bs := bars{Name: name}
		for _, st := range stacks {
			v, ok := added[name][st]
			if !ok || math.IsNaN(v) {
				v = 0
			}
			bs.Values = append(bs.Values, v)
		}
		series = append(series, bs)
	}
	return b.add(s, "", "", t)(stackBarChart(view+": latency added a proxied hop", "ms", stacks, series))
}
