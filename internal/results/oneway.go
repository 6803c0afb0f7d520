package results

import (
	"fmt"

	"github.com/hopbench/hopbench/internal/stats"
)

// OneWay is what a one-way run (publish, consume later) measured beyond
// the figures every run has. In such a run the record's latency is end
// to end, from each message's intended send time to its consumption;
// its requests and errors are the publishes.
type OneWay struct {
	// Consumers is how many subscribers share each group; Fanout says
	// whether there are several groups, each getting every message.
	Consumers int  `json:"consumers"`
	Fanout    bool `json:"fanout,omitempty"`
	// Published counts the messages the broker took (confirmed, when the
	// settings ask for confirms), warm-up included; PublishFailed those
	// whose publish failed.
	Published     int64 `json:"published"`
	PublishFailed int64 `json:"publish_failed,omitempty"`
	// Lost, Duplicated and OutOfOrder add up the groups' (see Group).
	Lost       int64 `json:"lost"`
	Duplicated int64 `json:"duplicated"`
	OutOfOrder int64 `json:"out_of_order"`
	// Publish is the publishes' latency, from intended send to the
	// broker having the message; nil for a capacity search (its probes'
	// latency is end to end).
	Publish *stats.Summary `json:"publish,omitempty"`
	// DrainMs is how long the consumers took, after the last publish, to
	// take every published message; Drained is false when they had not
	// when the wait (the load's timeout) ended.
	DrainMs float64 `json:"drain_ms"`
	Drained bool    `json:"drained"`
	Groups  []Group `json:"groups"`
	// Lag is, each second from the first publish to the end of the
	// drain, the messages published and not yet consumed by the group
	// furthest behind.
	Lag []LagPoint `json:"lag,omitempty"`
	// Reconnects counts the publishers' and consumers' connections made
	// again after one was lost (a broker restarted mid-run).
	Reconnects int64 `json:"reconnects,omitempty"`
	// Aborted names the consumers the run made crash (dropped without
	// settling their messages) and when.
	Aborted []string `json:"aborted,omitempty"`
}

// Group is one subscription group's accounting, message by message.
type Group struct {
	Name string `json:"name"`
	// Consumed counts the distinct messages of the run the group took;
	// PerConsumer each subscriber's deliveries, duplicates included.
	Consumed    int64   `json:"consumed"`
	PerConsumer []int64 `json:"per_consumer"`
	// Lost: published (the broker took them) and never consumed.
	Lost int64 `json:"lost"`
	// Duplicated: deliveries of a message the group had already taken.
	Duplicated int64 `json:"duplicated"`
	// OutOfOrder: deliveries to a subscriber of a producer's message
	// after a later one of the same producer.
	OutOfOrder int64 `json:"out_of_order"`
	// Unconfirmed: consumed although its publish failed (the broker took
	// it and the confirm did not come back in time).
	Unconfirmed int64 `json:"unconfirmed,omitempty"`
	// Foreign: messages of another run or not hopbench's, left in the
	// queue or topic, which count in nothing else.
	Foreign int64 `json:"foreign,omitempty"`
}

// LagPoint is one second of a one-way run.
type LagPoint struct {
	T         float64 `json:"t"` // seconds from the first publish
	Published int64   `json:"published"`
	Consumed  int64   `json:"consumed"` // by the group furthest behind
	Lag       int64   `json:"lag"`
}

// FlagLost: a one-way run lost messages, or delivered some twice, past
// MaxFailedShare of those published: its latency stands for a delivery
// that did not happen, so no ranking uses it. The counts are the run's
// finding and are shown.
const FlagLost Flag = "messages lost"

// markLost sets FlagLost on a one-way run that lost or duplicated past
// MaxFailedShare of what it published.
func (r *Record) markLost() {
	o := r.Figures.OneWay
	if o == nil || o.Published == 0 {
		return
	}
	bad := o.Lost + o.Duplicated
	if float64(bad) > MaxFailedShare*float64(o.Published) {
		r.Flags.Set(FlagLost, fmt.Sprintf("%d lost and %d duplicated of %d published", o.Lost, o.Duplicated, o.Published))
	}
}
