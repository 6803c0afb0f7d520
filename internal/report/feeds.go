package report

import (
	"math"
	"strings"

	"github.com/hopbench/hopbench/internal/ranking"
	"github.com/hopbench/hopbench/internal/results"
)

// isFeed says whether a case is a feed (server streaming): its op is
// feed:N.
func (m *measured) isFeed() bool { return strings.HasPrefix(m.Op, "feed:") }

// firstFigure is a feed's time to its first message, at p50.
var firstFigure = figure{ranking.Figure{Name: "time to the first message, p50",
	Of: func(r *results.Record) (float64, bool) {
		if r.FirstMessage == nil || r.Requests == 0 {
			return 0, false
		}
		return float64(r.FirstMessage.P50Us), true
	}},
	msWords}

// forFeeds names a headline figure as a feed's case reads it: its latency
// runs to the last message, and a request is a whole feed.
func (f figure) forFeeds() figure {
	switch f.Name {
	case p50Figure.Name:
		f.Name = "p50 to the last message"
	case rpsFigure.Name:
		f.Name = "throughput in feeds"
	}
	return f
}

// feedRankings ranks each feed case a second time, by its time to the
// first message: what a caller waiting to show something waits.
func feedRankings(keys, labels []string, by map[string][]*measured, runs map[string][]*results.Record) []Ranking {
	var out []Ranking
	for i, k := range keys {
		if by[k][0].isFeed() {
			out = append(out, rankCase(labels[i]+" · first message", by[k], runs, firstFigure))
		}
	}
	return out
}

// feeds sets each feed case's time to its first message beside its time
// to the last, with its messages a second: where the two are far apart a
// caller sees the first message long before the feed ends; where they are
// close, something held the messages back.
func (b *builder) feeds() error {
	cases := measuredWhere(b.cases, (*measured).isFeed)
	if len(cases) == 0 {
		return nil
	}
	s := b.section("feeds", "Feeds: the first message and the last",
		"Each feed (server streaming: the reply is N messages) from the intended send to its first message and to its last, and the messages the callers received a second. Medians over repetitions.")
	keys, by := groups(cases, (*measured).scenario)
	for _, k := range keys {
		t := Table{Header: []string{"stack", "first message p50 ms", "first message p99 ms", "last message p50 ms", "last message p99 ms", "messages/s"}}
		first, last := bars{Name: "first message p50"}, bars{Name: "last message p50"}
		var stacks []string
		var pts []point
		for _, c := range by[k] {
			if p, ok := pointOf(c, b.runs, firstFigure); ok {
				pts = append(pts, p)
			}
			stacks = append(stacks, c.Stack)
			first.Values, last.Values = append(first.Values, c.fed(c.FirstP50Us)/1000), append(last.Values, c.P50Us.Median/1000)
			t.Rows = append(t.Rows, []string{c.Stack, num(c.fed(c.FirstP50Us)/1000, 3), num(c.fed(c.FirstP99Us)/1000, 3), ms(c.P50Us.Median), ms(c.P99Us.Median), num(c.MessagesPerS.Median, 0)})
		}
		add := b.add(s, finding("time to the first message (p50)", false, pts, msWords), "", t)
		if err := add(stackBarChart(k+": first and last message, p50", "ms", stacks, []bars{first, last})); err != nil {
			return err
		}
	}
	return nil
}

// fed is a feed figure's median, NaN where no run recorded one.
func (m *measured) fed(s results.Spread) float64 {
	if !m.Fed {
		return math.NaN()
	}
	return s.Median
}
