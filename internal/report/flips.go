package report

import (
	"fmt"
	"slices"

	"github.com/hopbench/hopbench/internal/ranking"
	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
)

// rankedCase is one ranked case of the verdict: its stacks and the figure
// it is ranked by.
type rankedCase struct {
	cases []*measured
	f     figure
}

// Flip is a pair of stacks whose order reverses between two loads of one
// case (topology, op, payload): Text says it with the figures, and what
// explains it or that nothing does (then Explained is false and the
// order is unsettled).
type Flip struct {
	Topology, Model string
	Count           int
	Explained       bool
	Text            string
}

// flips are the pairs of stacks whose order reverses between two ranked
// cases that differ only in their load, significantly in both (Mann–Whitney
// U at reproduce.Alpha): "grpc leads rest+proto at 1 client and trails it
// at 32 clients". A user choosing on either case alone would be told the
// opposite of the other, so each flip is said, with what explains it where
// something measured does, or that nothing does.
func flips(ranked []rankedCase, runs map[string][]*results.Record) []Flip {
	var out []Flip
	for i, a := range ranked {
		for _, b := range ranked[i+1:] {
			// Distinct ranked cases with the same scenario sans load
			// differ in their load.
			if sansLoad(a.cases[0]) != sansLoad(b.cases[0]) {
				continue
			}
			out = append(out, caseFlips(a, b, runs)...)
		}
	}
	return out
}

// sansLoad is a case's scenario without its load.
func sansLoad(m *measured) string { return joinNonEmpty(m.Topology, m.Op, m.payload(), m.Options) }

func caseFlips(a, b rankedCase, runs map[string][]*results.Record) []Flip {
	pa, _ := standings(a.cases, runs, a.f)
	pb, _ := standings(b.cases, runs, b.f)
	c := a.cases[0]
	var out []Flip
	for i, x := range pa {
		for _, y := range pa[i+1:] {
			// x leads y in a; does y lead x in b, both significantly?
			if !apart(x, y) {
				continue
			}
			bx, okX := find(pb, x.stack)
			by, okY := find(pb, y.stack)
			if !okX || !okY || !leads(by, bx, b.f) || !apart(bx, by) {
				continue
			}
			why, explained := explain(a, b, y.stack, x.stack, runs)
			out = append(out, Flip{Topology: c.Topology, Model: c.Model, Count: c.Count, Explained: explained,
				Text: fmt.Sprintf("%s: %s leads %s %s (%s %s against %s, ≠) and trails it %s (%s %s against %s, ≠); %s",
					sansLoad(c), x.stack, y.stack, atLoad(c.Load), a.f.Name, a.f.format(x.v), a.f.format(y.v),
					atLoad(b.cases[0].Load), b.f.Name, b.f.format(bx.v), b.f.format(by.v), why)})
		}
	}
	return out
}

// atLoad is a load as a sentence's adverbial: "at 1 client", "in the
// capacity search at 10ms".
func atLoad(load string) string {
	if kind, _ := ranking.LoadKind(load); kind == "capacity" {
		return "in the " + loadWords(load)
	}
	return "at " + loadWords(load)
}

func find(pts []point, stack string) (point, bool) {
	i := slices.IndexFunc(pts, func(p point) bool { return p.stack == stack })
	if i < 0 {
		return point{}, false
	}
	return pts[i], true
}

// leads says x's figure is better than y's.
func leads(x, y point, f figure) bool {
	if f.HigherBetter {
		return x.v > y.v
	}
	return x.v < y.v
}

// apart says two stacks' runs differ significantly.
func apart(x, y point) bool {
	differs, tested, _ := reproduce.Significant(x.runs, y.runs)
	return tested && differs
}

// explain says what measured accounts for a flip: in the throughput case,
// the stack that carries more spends less CPU a request, which is what
// caps throughput when the machine's cores are the limit. Otherwise
// nothing measured does, and the answer is unsettled.
func explain(a, b rankedCase, bLeader, aLeader string, runs map[string][]*results.Record) (string, bool) {
	tc, leader, other := b, bLeader, aLeader
	if a.f.HigherBetter && !b.f.HigherBetter {
		tc, leader, other = a, aLeader, bLeader
	}
	if tc.f.HigherBetter {
		cl, okL := stackCPU(tc, leader, runs)
		co, okO := stackCPU(tc, other, runs)
		if okL && okO && cl < co {
			return fmt.Sprintf("explained: %s spends less CPU a request %s (%s against %s), and CPU is what caps throughput on this machine",
				leader, atLoad(tc.cases[0].Load), usWords(cl), usWords(co)), true
		}
	}
	return "unexplained: nothing measured here accounts for it, so the order is unsettled; measure again before choosing on either case", false
}

// stackCPU is the median CPU a request of stack's runs in rc.
func stackCPU(rc rankedCase, stack string, runs map[string][]*results.Record) (float64, bool) {
	i := slices.IndexFunc(rc.cases, func(m *measured) bool { return m.Stack == stack })
	if i < 0 {
		return 0, false
	}
	p, ok := pointOf(rc.cases[i], runs, cpuFigure)
	return p.v, ok
}

// VerdictOf is what recs say, as a report's first section says it,
// without the rest of the report.
func VerdictOf(recs []results.Record) (Verdict, error) {
	b, err := newBuilder(&Report{}, recs)
	if err != nil {
		return Verdict{}, err
	}
	b.verdict()
	return b.report.Verdict, nil
}
