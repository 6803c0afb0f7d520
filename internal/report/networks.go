package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/results"
)

// withoutWord is options less the word that starts with prefix (net:,
// proxy:): a case's twin without that dimension.
func withoutWord(options, prefix string) string {
	words := slices.DeleteFunc(strings.Fields(options), func(w string) bool { return strings.HasPrefix(w, prefix) })
	return strings.Join(words, " ")
}

// networks shows what each emulated network gave, as measured before each
// of its runs, and each scenario's p50 by stack across the networks it was
// measured on.
func (b *builder) networks(recs []results.Record) error {
	var names []string
	rtt, dgram, mbit := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	mechanism := map[string]string{}
	for _, r := range recs {
		if r.Network == nil {
			continue
		}
		n := r.Network.Profile
		if _, ok := rtt[n]; !ok {
			names = append(names, n)
		}
		rtt[n], mbit[n] = append(rtt[n], r.Network.RTTUs), append(mbit[n], r.Network.Mbit)
		if r.Network.DatagramRTTUs > 0 {
			dgram[n] = append(dgram[n], r.Network.DatagramRTTUs)
		}
		mechanism[n] = r.Network.Mechanism
	}
	if len(names) == 0 {
		return nil
	}
	s := b.section("networks", "Networks: emulated, and what they gave",
		"Runs named net:… crossed an emulated network: its delay one way on each direction of every hop, its bandwidth on each direction of each connection. Before each run, the round trip and a bulk transfer's throughput were measured on a connection shaped as the run's were (in process, the round trip of a datagram too, shaped as QUIC's are); medians (min–max) over the runs. Figures of those runs were made under what was measured, not under what was asked.")
	t := networksTable(names, mechanism, rtt, dgram, mbit)
	trips := bars{Name: "round trip"}
	for _, n := range names {
		trips.Values = append(trips.Values, results.SpreadOf(rtt[n]).Median/1000)
	}
	lo, hi := 0, 0 // the networks with the shortest and the longest round trip
	for i, v := range trips.Values {
		if v > trips.Values[hi] {
			hi = i
		}
		if v < trips.Values[lo] {
			lo = i
		}
	}
	found := fmt.Sprintf("The measured round trip runs from %s ms on %s to %s ms on %s (medians of runs).", num(trips.Values[lo], 3), names[lo], num(trips.Values[hi], 3), names[hi])
	if err := b.add(s, found, "", t)(barChart("measured round trip by network", "ms", names, []bars{trips}, seriesStyle)); err != nil {
		return err
	}
	return b.acrossNetworks(s)
}

// networksTable has a row a network; a column of datagrams' round trips
// when any run measured one.
func networksTable(names []string, mechanism map[string]string, rtt, dgram, mbit map[string][]float64) Table {
	t := Table{Header: []string{"network", "mechanism", "runs", "round trip ms", "throughput Mbit/s"}}
	if len(dgram) > 0 {
		t.Header = slices.Insert(t.Header, 4, "datagram round trip ms")
	}
	for _, n := range names {
		row := []string{n, mechanism[n], num(float64(len(rtt[n])), 0), spread(rtt[n], 1000, 3), spread(mbit[n], 1, 1)}
		if len(dgram) > 0 {
			d := "–"
			if len(dgram[n]) > 0 {
				d = spread(dgram[n], 1000, 3)
			}
			row = slices.Insert(row, 4, d)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// acrossNetworks charts, for each scenario measured on more than one
// network, each stack's p50 on each.
func (b *builder) acrossNetworks(s *Section) error {
	var views []string
	byView := map[string]map[string]map[string]float64{} // view -> network -> stack -> p50 µs
	for _, c := range measuredOnly(b.cases) {
		twin := *c
		twin.Options = withoutWord(c.Options, results.NetOption)
		v := twin.scenario()
		if byView[v] == nil {
			views = append(views, v)
			byView[v] = map[string]map[string]float64{}
		}
		n := results.NetworkOf(c.Options)
		if byView[v][n] == nil {
			byView[v][n] = map[string]float64{}
		}
		byView[v][n][c.Stack] = c.P50Us.Median
	}
	for _, v := range views {
		if len(byView[v]) < 2 {
			continue
		}
		if err := b.networkFigure(s, v, byView[v]); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) networkFigure(s *Section, view string, p50 map[string]map[string]float64) error {
	nets := slices.Sorted(maps.Keys(p50))
	var stacks []string
	for _, n := range nets {
		for st := range p50[n] {
			if !slices.Contains(stacks, st) {
				stacks = append(stacks, st)
			}
		}
	}
	slices.Sort(stacks)
	t := Table{Header: append([]string{"stack"}, prefixEach("p50 ms ", nets)...)}
	series := make([]bars, len(nets))
	for i, n := range nets {
		series[i].Name = n
	}
	for _, st := range stacks {
		row := []string{st}
		for i, n := range nets {
			v, ok := p50[n][st]
			cell := "–"
			if ok {
				cell = ms(v)
			}
			row = append(row, cell)
			series[i].Values = append(series[i].Values, v/1000)
		}
		t.Rows = append(t.Rows, row)
	}
	slowest, worst := "", -1.0
	for _, n := range nets {
		var vs []float64
		for _, v := range p50[n] {
			vs = append(vs, v)
		}
		if m := results.SpreadOf(vs).Median; m > worst {
			slowest, worst = n, m
		}
	}
	var pts []point
	for st, v := range p50[slowest] {
		pts = append(pts, point{stack: st, v: v})
	}
	return b.add(s, "On "+slowest+", the slowest network here: "+finding("p50", false, pts, msWords), "", t)(stackBarChart(view+": p50 by network", "ms", stacks, series))
}

func prefixEach(prefix string, ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = prefix + w
	}
	return out
}

// spread is the median of vs over unit, with min–max when there are more.
func spread(vs []float64, unit float64, prec int) string {
	sp := results.SpreadOf(vs)
	if len(vs) < 2 {
		return num(sp.Median/unit, prec)
	}
	return num(sp.Median/unit, prec) + " (" + num(sp.Min/unit, prec) + "–" + num(sp.Max/unit, prec) + ")"
}
