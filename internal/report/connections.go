package report

import "github.com/hopbench/hopbench/internal/results"

// perRequest is the word a case's options carry when each call opened a
// connection of its own.
const perRequest = "per-request"

// twinPair is a case whose options carry a word (per-request, jvm) and its
// twin without it: the same stack, topology, operation, payload, load and
// other options.
type twinPair struct {
	without, with *measured
}

// twinPairs finds, for each measured case whose options carry word, its
// twin.
func twinPairs(cases []*measured, word string) []twinPair {
	return twinsOf(measuredOnly(cases), cases, func(options string) []string {
		if !results.HasOption(options, word) {
			return nil
		}
		return []string{results.WithoutOption(options, word)}
	})
}

// twinsOf finds, for each case of with, the first measured case of cases
// of the same stack and scenario with options twinOptions names (the
// options to try, in order; none for a case without a twin).
func twinsOf(with, cases []*measured, twinOptions func(options string) []string) []twinPair {
	byKey := map[string]*measured{}
	for _, c := range measuredOnly(cases) {
		if k := c.Stack + " " + c.scenario(); byKey[k] == nil {
			byKey[k] = c
		}
	}
	var out []twinPair
	for _, c := range with {
		for _, o := range twinOptions(c.Options) {
			twin := *c
			twin.Options = o
			if p := byKey[c.Stack+" "+twin.scenario()]; p != nil {
				out = append(out, twinPair{without: p, with: c})
				break
			}
		}
	}
	return out
}

// connections sets each case measured with a connection per call beside
// its twin with pooled connections: what connecting (and, with TLS, the
// handshake) adds to a call, and its share of the call's latency.
func (b *builder) connections() error {
	pairs := twinPairs(b.cases, perRequest)
	if len(pairs) == 0 {
		return nil
	}
	s := b.section("connections", "Connections: pooled against one per call",
		"Each case measured with a new connection for every call (per-request: connecting and, with TLS, a full handshake on each call) beside the same case with the connections kept for the run. Medians over repetitions; the share is what a connection per call adds, as a part of the per-request median.")
	views, byView := byScenario(pairs)
	for _, v := range views {
		t := Table{Header: []string{"stack", "p50 ms pooled", "p50 ms per request", "added per call ms", "share of the per-request p50"}}
		pooled, per := bars{Name: "pooled"}, bars{Name: "per request"}
		var stacks []string
		var added []point
		for _, p := range byView[v] {
			a, z := p.without.P50Us.Median, p.with.P50Us.Median
			added = append(added, point{stack: p.with.Stack, v: z - a})
			t.Rows = append(t.Rows, []string{p.with.Stack, ms(a), ms(z), ms(z - a), num(100*(z-a)/z, 0) + " %"})
			stacks = append(stacks, p.with.Stack)
			pooled.Values, per.Values = append(pooled.Values, a/1000), append(per.Values, z/1000)
		}
		if err := b.add(s, finding("p50 added by a connection per call", false, added, msWords), "", t)(stackBarChart(v+": p50, pooled and per request", "ms", stacks, []bars{pooled, per})); err != nil {
			return err
		}
	}
	return nil
}

// byScenario groups pairs by the scenario they were measured in, in the
// order the scenarios first appear.
func byScenario(pairs []twinPair) (views []string, byView map[string][]twinPair) {
	byView = map[string][]twinPair{}
	for _, p := range pairs {
		v := p.without.scenario()
		if _, ok := byView[v]; !ok {
			views = append(views, v)
		}
		byView[v] = append(byView[v], p)
	}
	return views, byView
}
