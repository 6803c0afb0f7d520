package report

import (
	"fmt"
	"strings"

	"github.com/hopbench/hopbench/internal/results"
)

// oneWayCase is a one-way case's runs, accounted for message by message.
type oneWayCase struct {
	name, stack                  string
	runs                         int
	published, lost, dup, ooo    int64
	undrained                    int
	p50, p99, publishP50, drains []float64 // per run, ms
}

// messaging shows every one-way case's accounting beside its end-to-end
// latency: what a broker's delivery settings cost, and what they kept.
func (b *builder) messaging(recs []results.Record) error {
	cases := oneWayCases(recs)
	if len(cases) == 0 {
		return nil
	}
	s := b.section("messaging", "One-way messaging: delivered, lost, duplicated",
		"One-way runs publish at the load's rate and consumers take the messages later. Every message carries its run, its sequence and its producer's, and its intended send time: each group's consumers are checked message by message. Lost: published (the broker took it) and never consumed; duplicated: consumed again; out of order: a producer's message after a later one of the same producer, at one consumer. Counts are summed over a case's runs; latencies are medians over them, end to end from the intended send to the consumer, and the publish's own (to the broker's ack where the settings ask for one).")
	t := Table{Header: []string{"stack", "settings", "runs", "published", "lost", "duplicated", "out of order", "end-to-end p50 ms", "end-to-end p99 ms", "publish p50 ms", "drain ms", "not drained"}}
	p50 := bars{Name: "end-to-end p50"}
	var labels []string
	clean := 0
	for _, c := range cases {
		t.Rows = append(t.Rows, []string{c.stack, settingsOf(c.name), fmt.Sprint(c.runs), fmt.Sprint(c.published), fmt.Sprint(c.lost), fmt.Sprint(c.dup), fmt.Sprint(c.ooo),
			num(median(c.p50), 3), num(median(c.p99), 3), num(median(c.publishP50), 3), num(median(c.drains), 1), fmt.Sprint(c.undrained)})
		labels = append(labels, c.stack+" "+settingsOf(c.name))
		p50.Values = append(p50.Values, median(c.p50))
		if c.lost == 0 && c.dup == 0 && c.undrained == 0 {
			clean++
		}
	}
	found := fmt.Sprintf("%d of %d one-way cases delivered every message exactly once in every run.", clean, len(cases))
	return b.add(s, found, "", t)(barChart("one-way: end-to-end p50 by case", "ms", labels, []bars{p50}, seriesStyle))
}

// oneWayCases gathers the one-way records by case, in first-seen order;
// runs that did not complete count in nothing.
func oneWayCases(recs []results.Record) []*oneWayCase {
	var out []*oneWayCase
	by := map[string]*oneWayCase{}
	for _, r := range recs {
		ow := r.OneWay
		if ow == nil || !r.Completed() {
			continue
		}
		c := by[r.Case]
		if c == nil {
			c = &oneWayCase{name: r.Case, stack: r.Stack}
			by[r.Case] = c
			out = append(out, c)
		}
		c.runs++
		c.published, c.lost, c.dup, c.ooo = c.published+ow.Published, c.lost+ow.Lost, c.dup+ow.Duplicated, c.ooo+ow.OutOfOrder
		if !ow.Drained {
			c.undrained++
		}
		c.p50, c.p99 = append(c.p50, float64(r.P50Us)/1000), append(c.p99, float64(r.P99Us)/1000)
		if ow.Publish != nil {
			c.publishP50 = append(c.publishP50, float64(ow.Publish.P50Us)/1000)
		}
		c.drains = append(c.drains, ow.DrainMs)
	}
	return out
}

// settingsOf is a one-way case's shape and settings: what its name says
// after "oneway".
func settingsOf(caseName string) string {
	if _, after, ok := strings.Cut(caseName, " oneway "); ok {
		return after
	}
	return ""
}
