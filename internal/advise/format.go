package advise

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Write prints the advice: the requirements as understood, then each stack
// in rank order with the figures and trade-offs behind its place.
func (a *Advice) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Requirements: %s\n", a.Requirements.describe())
	if a.Basis != "" {
		fmt.Fprintf(&b, "Compared on: %s\n", a.Basis)
	}
	rest := "fewest unmet first"
	if a.Requirements.SchemaEvolution && slices.ContainsFunc(a.Ranked, func(s Stack) bool { return s.Evolution != nil }) {
		rest += " and, among as many, the most schema changes kept in the schema trials"
	}
	switch {
	case len(a.Ranked) > 0 && a.Requirements.atRateAsked():
		fmt.Fprintf(&b, "Ranked: stacks that meet every requirement first, by headroom (the highest rate an open-loop run held with p%s within %s, over the %.0f req/s asked); then the rest, %s. Latency at a rate is read from open-loop runs only.\n",
			pct(a.Requirements.Percentile), a.Requirements.SLA, a.Requirements.Rate, rest)
	case len(a.Ranked) > 0:
		fmt.Fprintf(&b, "Ranked: stacks that meet every requirement first, by latency%s at p%s; then the rest, %s.\n", a.Requirements.toLast(), pct(a.Requirements.Percentile), rest)
	}
	if len(a.Ranked) > 0 && a.Requirements.Feed > 0 {
		b.WriteString("For a feed, latency runs to its last message and req/s counts whole feeds; its first message is timed from the intended send, as latency is.\n")
	}
	for i, s := range a.Ranked {
		verdict := "fits"
		if !s.Fits {
			verdict = fmt.Sprintf("does not fit (%d unmet)", len(s.Unmet))
		}
		fmt.Fprintf(&b, "\n%d. %s: %s\n", i+1, s.Name, verdict)
		for _, u := range s.Unmet {
			fmt.Fprintf(&b, "   ✗ %s\n", u)
		}
		for _, e := range s.Evidence {
			fmt.Fprintf(&b, "   measured: %s\n", e)
		}
		for _, t := range s.TradeOffs {
			fmt.Fprintf(&b, "   trade-off: %s\n", t)
		}
	}
	if len(a.Cannot) > 0 {
		b.WriteString("\n")
		for _, c := range a.Cannot {
			fmt.Fprintf(&b, "Cannot: %s\n", c)
		}
	}
	if len(a.LeftOut) > 0 {
		b.WriteString("\n")
		for _, l := range a.LeftOut {
			fmt.Fprintf(&b, "Left out: %s\n", l)
		}
	}
	if len(a.Unsettled) > 0 {
		b.WriteString("\n")
		for _, u := range a.Unsettled {
			fmt.Fprintf(&b, "Unsettled: %s\n", u)
		}
	}
	if len(a.Missing) > 0 {
		b.WriteString("\n")
		for _, m := range a.Missing {
			fmt.Fprintf(&b, "Missing: %s\n", m)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r Requirements) describe() string {
	parts := []string{fmt.Sprintf("%s×%d through %s%s", r.Model, r.Count, r.Topology, r.feedWords())}
	if r.Rate > 0 {
		parts = append(parts, fmt.Sprintf("%.0f calls/s", r.Rate))
	}
	if r.SLA > 0 {
		parts = append(parts, fmt.Sprintf("p%s within %s%s", pct(r.Percentile), r.SLA, r.toLast()))
	}
	if r.FirstMessageSLA > 0 {
		parts = append(parts, fmt.Sprintf("first message at p%s within %s", pct(r.Percentile), r.FirstMessageSLA))
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{r.Async, "asynchronous decoupling"}, {r.Durable, "durable requests"}, {r.Browser, "browser or third-party clients"}, {r.SchemaEvolution, "safe schema evolution"}} {
		if f.on {
			parts = append(parts, f.name)
		}
	}
	if len(r.Stacks) > 0 {
		parts = append(parts, "among "+strings.Join(r.Stacks, ", "))
	}
	if r.MemoryMiB > 0 {
		parts = append(parts, fmt.Sprintf("%.0f MiB per service", r.MemoryMiB))
	}
	return strings.Join(parts, "; ")
}
