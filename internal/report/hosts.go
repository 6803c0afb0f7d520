package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/results"
)

// placed is a run placed on hosts, read from its record.
type placed struct {
	rec *results.Record
	// where is its placement's name, or where its parts were when the
	// placement had none, index its place in the spec's list; scenario
	// the case without it.
	where, scenario string
	index           int
}

// placedRuns are the records of runs placed on hosts that ended ok.
func placedRuns(recs []results.Record) []placed {
	var out []placed
	for i := range recs {
		r := &recs[i]
		if len(r.Hosts) == 0 || r.Outcome != results.OutcomeOK {
			continue
		}
		var cfg struct {
			Placement struct {
				Name  string `json:"name"`
				Index int    `json:"index"`
			} `json:"placement"`
		}
		json.Unmarshal(r.Config, &cfg)
		where := cfg.Placement.Name
		if where == "" {
			_, where, _ = strings.Cut(r.Options, "on ")
		}
		scenario := strings.Join(strings.Fields(strings.Replace(r.Case, "on "+where, "", 1)), " ")
		out = append(out, placed{rec: r, where: where, index: cfg.Placement.Index, scenario: strings.TrimPrefix(scenario, r.Stack+" ")})
	}
	// Placements in the spec's order, stacks in the report's.
	slices.SortStableFunc(out, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.index, b.index), compareStacks(a.rec.Stack, b.rec.Stack))
	})
	return out
}

// hosts shows, for runs placed on hosts of their own, what each host
// used, and each scenario measured on more than one placement with each
// placement's latency and throughput against the first's.
func (b *builder) hosts(recs []results.Record) error {
	runs := placedRuns(recs)
	if len(runs) == 0 {
		return nil
	}
	s := b.section("hosts", "Hosts: where each part ran, and what it used there",
		"Runs placed on hosts of their own (hopbench agent on each): the generator, each node and the broker on the host the placement names. Each host's agent read, over the measured window, the CPU of what hopbench ran there (the agent sending a load share, the nodes, the broker) per request, and the bytes its interfaces sent and received per request (loopback left out: a hop between two parts on one host crosses none). Medians over the runs that ended ok. Hosts that are network namespaces of one machine share its CPUs: their CPU is told apart, their capacity is not.")
	for _, p := range runs {
		for _, h := range p.rec.Hosts {
			if h.UsageError != "" {
				b.missing("%s: host %s has no CPU or network figures: %s", p.rec.Case, h.Name, h.UsageError)
			}
		}
	}
	if err := b.hostUse(s, runs); err != nil {
		return err
	}
	return b.placements(s, runs)
}

// hostUse charts, for each placement and scenario, each host's CPU per
// request by stack, beside a table of each host's roles, CPU and bytes.
func (b *builder) hostUse(s *Section, runs []placed) error {
	wheres, byWhere := groupBy(runs, func(p placed) string { return p.where + " · " + p.scenario })
	for _, w := range wheres {
		hs := hostsOf(byWhere[w])
		stacks, byStack := groupBy(byWhere[w], func(p placed) string { return p.rec.Stack })
		t := Table{Header: []string{"stack", "host", "roles", "runs", "CPU µs/req", "sent B/req", "received B/req"}}
		series := make([]bars, len(hs))
		for j, h := range hs {
			series[j].Name = h
			for _, st := range stacks {
				cpu, sent, recv := hostFigures(byStack[st], h)
				series[j].Values = append(series[j].Values, results.SpreadOf(cpu).Median)
				t.Rows = append(t.Rows, []string{st, h, strings.Join(rolesOf(byStack[st], h), ", "), num(float64(len(cpu)), 0),
					spread(cpu, 1, 1), spread(sent, 1, 0), spread(recv, 1, 0)})
			}
		}
		if err := b.add(s, busiest(series, stacks), "", t)(stackBarChart(w+": CPU per request on each host", "µs", stacks, series)); err != nil {
			return err
		}
	}
	return nil
}

// placements sets each scenario measured on more than one placement with
// each placement's p50 and throughput against the first placement's, and
// the CPU per request of all its hosts together.
func (b *builder) placements(s *Section, runs []placed) error {
	scenarios, byScenario := groupBy(runs, func(p placed) string { return p.scenario })
	for _, sc := range scenarios {
		wheres, _ := groupBy(byScenario[sc], func(p placed) string { return p.where })
		if len(wheres) < 2 {
			continue
		}
		stacks, byStack := groupBy(byScenario[sc], func(p placed) string { return p.rec.Stack })
		t := Table{Header: []string{"stack", "placement", "runs", "p50 ms", "p50 ÷ " + wheres[0], "req/s", "req/s ÷ " + wheres[0], "CPU µs/req, all hosts"}}
		series := make([]bars, len(wheres))
		for i, w := range wheres {
			series[i].Name = w
		}
		for _, st := range stacks {
			_, mine := groupBy(byStack[st], func(p placed) string { return p.where })
			p50First, rpsFirst, _ := placedFigures(mine[wheres[0]])
			for i, w := range wheres {
				p50, rps, cpu := placedFigures(mine[w])
				series[i].Values = append(series[i].Values, results.SpreadOf(p50).Median/1000)
				p50Ratio, rpsRatio := ratioCell(p50, p50First), ratioCell(rps, rpsFirst)
				if i == 0 {
					p50Ratio, rpsRatio = "–", "–"
				}
				t.Rows = append(t.Rows, []string{st, w, num(float64(len(p50)), 0), spread(p50, 1000, 3), p50Ratio,
					spread(rps, 1, 0), rpsRatio, spread(cpu, 1, 1)})
			}
		}
		found := fmt.Sprintf("Each stack's p50 on each placement of %s; the table sets each placement against %s, with its interval where both have 2 runs or more.", sc, wheres[0])
		if err := b.add(s, found, "", t)(stackBarChart(sc+": p50 by placement", "ms", stacks, series)); err != nil {
			return err
		}
	}
	return nil
}

// placedFigures are each run's p50 (µs), throughput and the CPU per
// request of all its hosts together.
func placedFigures(runs []placed) (p50, rps, cpu []float64) {
	for _, p := range runs {
		p50, rps = append(p50, float64(p.rec.P50Us)), append(rps, p.rec.RPS)
		total := 0.0
		for _, h := range p.rec.Hosts {
			if h.UsageError != "" {
				total = math.NaN() // a host's figures are missing: no total stands
				break
			}
			total += h.CPUUsPerReq
		}
		if !math.IsNaN(total) {
			cpu = append(cpu, total)
		}
	}
	return p50, rps, cpu
}

// busiest says which host used the most CPU per request, for each stack
// the chart draws.
func busiest(series []bars, stacks []string) string {
	var words []string
	for j, st := range stacks {
		top := -1
		for i, s := range series {
			if !math.IsNaN(s.Values[j]) && (top < 0 || s.Values[j] > series[top].Values[j]) {
				top = i
			}
		}
		if top >= 0 {
			words = append(words, fmt.Sprintf("%s on %s (%s µs)", st, series[top].Name, num(series[top].Values[j], 1)))
		}
	}
	return "The host using the most CPU per request, by stack (medians of runs): " + strings.Join(words, "; ") + "."
}

func hostsOf(runs []placed) []string {
	var out []string
	for _, p := range runs {
		for _, h := range p.rec.Hosts {
			if !slices.Contains(out, h.Name) {
				out = append(out, h.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

func rolesOf(runs []placed, host string) []string {
	for _, h := range runs[0].rec.Hosts {
		if h.Name == host {
			return h.Roles
		}
	}
	return nil
}

// hostFigures are host's CPU µs per request and bytes sent and received
// per request in each run.
func hostFigures(runs []placed, host string) (cpu, sent, recv []float64) {
	for _, p := range runs {
		for _, h := range p.rec.Hosts {
			if h.Name == host && h.NetPerReq != nil {
				cpu, sent, recv = append(cpu, h.CPUUsPerReq), append(sent, h.NetPerReq.Sent), append(recv, h.NetPerReq.Received)
			}
		}
	}
	return cpu, sent, recv
}
