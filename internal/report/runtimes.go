package report

import (
	"math"

	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/results"
)

// runtimes sets each case measured on the JVM's nodes beside its twin on
// Go's: latency with the ratio's interval and the runs behind it, the
// nodes' CPU, memory and boot.
func (b *builder) runtimes(recs []results.Record) error {
	pairs := twinPairs(b.cases, jvm.JVM)
	if len(pairs) == 0 {
		return nil
	}
	p50s := okP50s(recs)
	s := b.section("runtimes", "Runtimes: Go and the JVM side by side",
		"Each case run on the JVM's nodes (jvm/node: Quarkus in JVM mode, JSON through Jackson on plain classes, Protobuf through protobuf-java) beside the same case on Go's (hopbench node): the same payloads (the JVM's get replies are the Go generator's messages, handed to it), load and machine. p50 is the median over repetitions; JVM/Go is the ratio of those medians with its 95% bootstrap interval over the runs when each side has two or more, and the runs on each side. Node CPU per request sums the services; RSS is the largest service's; JVM heap is the largest JVM node's most heap used and most committed over the window, from its GC log; boot is from spawn to serving.")
	views, byView := byScenario(pairs)
	for _, v := range views {
		t := Table{Header: []string{"stack", "p50 ms Go", "p50 ms JVM", "JVM/Go p50", "node CPU µs/req Go", "JVM", "RSS MiB Go", "JVM", "JVM heap MiB used / committed", "boot ms Go", "JVM"}}
		goBars, jvmBars := bars{Name: "Go"}, bars{Name: "JVM"}
		var stacks []string
		var ratios []point
		for _, p := range byView[v] {
			g, j := p.without, p.with
			ratios = append(ratios, point{stack: j.Stack, v: j.P50Us.Median / g.P50Us.Median})
			t.Rows = append(t.Rows, []string{j.Stack, ms(g.P50Us.Median), ms(j.P50Us.Median), ratioCell(p50s[j.Case], p50s[g.Case]),
				num(g.NodesCPU, 1), num(j.NodesCPU, 1), mib(g.NodesRSS), mib(j.NodesRSS), heapCell(j), bootCell(g.NodeBootMs), bootCell(j.NodeBootMs)})
			stacks = append(stacks, j.Stack)
			goBars.Values, jvmBars.Values = append(goBars.Values, g.P50Us.Median/1000), append(jvmBars.Values, j.P50Us.Median/1000)
		}
		if err := b.add(s, finding("JVM/Go p50", false, ratios, timesWords), "", t)(stackBarChart(v+": p50 on Go and on the JVM", "ms", stacks, []bars{goBars, jvmBars})); err != nil {
			return err
		}
	}
	return nil
}

// okP50s are the p50s, µs, of each case's runs that ended ok, by case:
// what ratioCell takes.
func okP50s(recs []results.Record) map[string][]float64 {
	out := map[string][]float64{}
	for _, r := range recs {
		if r.Outcome == results.OutcomeOK {
			out[r.Case] = append(out[r.Case], float64(r.P50Us))
		}
	}
	return out
}

// ratioCell is median(num)/median(den) with its interval and the runs
// behind each side: ×1.42 [1.30–1.61] (3, 3 runs).
func ratioCell(num, den []float64) string {
	if len(num) == 0 || len(den) == 0 {
		return "–"
	}
	c := compare(runsPoint(num), runsPoint(den), false)
	if c.interval != "" {
		return c.factor + " " + c.interval + " (" + c.runs + ")"
	}
	return c.factor + ", no interval (" + c.runs + ")"
}

// heapCell is a JVM case's heap peaks, used / committed, MiB.
func heapCell(j *measured) string {
	if math.IsNaN(j.HeapCommitted) {
		return "–"
	}
	return mib(j.HeapUsed) + " / " + mib(j.HeapCommitted)
}

func bootCell(ms []float64) string {
	if len(ms) == 0 {
		return "–"
	}
	return num(results.SpreadOf(ms).Median, 0)
}
