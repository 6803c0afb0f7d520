package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/stats"
)

// Spread is a figure over repetitions: median, min and max.
type Spread struct {
	Median, Min, Max float64
}

// SpreadOf is the median, min and max of vs; zeros for none.
func SpreadOf(vs []float64) Spread {
	if len(vs) == 0 {
		return Spread{}
	}
	return Spread{Median: stats.Median(vs), Min: slices.Min(vs), Max: slices.Max(vs)}
}

func (s Spread) format(unit float64, prec int, reps int) string {
	f := func(v float64) string { return strconv.FormatFloat(v/unit, 'f', prec, 64) }
	if reps < 2 {
		return f(s.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", f(s.Median), f(s.Min), f(s.Max))
}

// Row is one case of an experiment: its repetitions summarized.
type Row struct {
	Case, Part, Stack, Topology, Op, Model, Load, Options string
	Count                                                 int
	Reps                                                  int
	Outcomes                                              []string // distinct, in order seen
	Requests, Errors                                      int64
	RPS, P50Us, P99Us, CPUUsPerReq                        Spread
	// Capacity is a capacity search's capacity_rps over repetitions, and
	// LowerBound whether any repetition's was only a lower bound;
	// Searched whether the case is a capacity search at all.
	Capacity             Spread
	LowerBound, Searched bool
	// LatenessP99Us is an open loop's generator lateness at p99 over
	// repetitions (Figures.Lateness); Late whether any run recorded one.
	LatenessP99Us Spread
	Late          bool
	// FirstP50Us and FirstP99Us are a feed's time to its first message
	// (Figures.FirstMessage), and MessagesPerS its messages a second, over
	// repetitions; Fed whether any run recorded them.
	FirstP50Us, FirstP99Us, MessagesPerS Spread
	Fed                                  bool
	// Search is the first completed repetition's search, for the bound
	// it read when no repetition found a capacity.
	Search *SearchResult
	// Flagged counts the completed runs carrying each flag; the spreads
	// leave out those whose flag withholds their figures.
	Flagged map[Flag]int
}

// Summarize groups records by case, in the order cases first appear, and
// takes the median with min–max over repetitions. Figures of runs that did
// not complete (failed, interrupted) are left out of the spreads, but
// their outcomes are shown.
func Summarize(recs []Record) []Row {
	var rows []Row
	index := map[string]int{}
	var rps, p50, p99, cpu, capacity, late, first50, first99, msgs [][]float64
	for _, r := range recs {
		i, ok := index[r.Case]
		if !ok {
			i = len(rows)
			index[r.Case] = i
			rows = append(rows, Row{Case: r.Case, Part: r.Part, Stack: r.Stack, Topology: r.Topology, Op: r.Op, Model: r.Model, Count: r.Count, Load: r.Load, Options: r.Options})
			rps, p50, p99, cpu, capacity = append(rps, nil), append(p50, nil), append(p99, nil), append(cpu, nil), append(capacity, nil)
			late, first50, first99, msgs = append(late, nil), append(first50, nil), append(first99, nil), append(msgs, nil)
		}
		row := &rows[i]
		if !slices.Contains(row.Outcomes, r.Outcome) {
			row.Outcomes = append(row.Outcomes, r.Outcome)
		}
		row.Searched = row.Searched || strings.HasPrefix(r.Load, "capacity:")
		if !r.Completed() {
			continue
		}
		row.count(&r)
		if !r.Stands() {
			continue
		}
		row.Reps++
		if c := r.Capacity; c != nil {
			capacity[i] = append(capacity[i], c.RPS)
			row.LowerBound = row.LowerBound || c.LowerBound
			if row.Search == nil {
				row.Search = c
			}
			if c.Step < 0 || c.Step >= len(r.Steps) {
				continue // no rate met the SLA: no rate or latency there to show
			}
		}
		rps[i] = append(rps[i], r.RPS)
		p50[i] = append(p50[i], float64(r.P50Us))
		p99[i] = append(p99[i], float64(r.P99Us))
		cpu[i] = append(cpu[i], r.ClientCPUUsPerReq)
		if r.Lateness != nil {
			late[i], row.Late = append(late[i], float64(r.Lateness.P99Us)), true
		}
		if f := r.FirstMessage; f != nil {
			first50[i], first99[i], row.Fed = append(first50[i], float64(f.P50Us)), append(first99[i], float64(f.P99Us)), true
			msgs[i] = append(msgs[i], r.MessagesPerS)
		}
	}
	for i := range rows {
		rows[i].RPS, rows[i].P50Us, rows[i].P99Us, rows[i].CPUUsPerReq = SpreadOf(rps[i]), SpreadOf(p50[i]), SpreadOf(p99[i]), SpreadOf(cpu[i])
		rows[i].Capacity, rows[i].LatenessP99Us = SpreadOf(capacity[i]), SpreadOf(late[i])
		rows[i].FirstP50Us, rows[i].FirstP99Us, rows[i].MessagesPerS = SpreadOf(first50[i]), SpreadOf(first99[i]), SpreadOf(msgs[i])
	}
	return rows
}

// count adds a completed run's calls, errors and flags to the row, whether
// or not its figures stand: they are what happened. A capacity search's
// calls and errors are those at its capacity, like its rate and latency:
// the probes above it fail by design.
func (row *Row) count(r *Record) {
	for _, m := range r.Flags {
		if row.Flagged == nil {
			row.Flagged = map[Flag]int{}
		}
		row.Flagged[m.Flag]++
	}
	switch c := r.Capacity; {
	case c == nil:
		row.Requests += r.Requests
		row.Errors += r.Errors
	case c.Step >= 0 && c.Step < len(r.Steps):
		row.Requests += r.Steps[c.Step].Requests
		row.Errors += r.Steps[c.Step].Errors
	}
}

// Header is the summary table's header, a cell for each of Row.Cells.
var Header = []string{"stack", "topology", "op", "payload", "load", "options", "reps", "req/s", "p50 ms", "p99 ms", "errors", "outcome"}

// Cells are the row as the summary table shows it.
func (r Row) Cells() []string {
	return []string{
		r.Stack, r.Topology, r.Op, fmt.Sprintf("%s×%d", r.Model, r.Count), r.Load, r.Options, strconv.Itoa(r.Reps),
		r.RPS.format(1, 0, r.Reps), r.P50Us.format(1000, 3, r.Reps), r.P99Us.format(1000, 3, r.Reps),
		errorShare(r.Errors, r.Requests), r.outcomeCell(),
	}
}

// outcomeCell is the row's outcomes, then each flag with its runs:
// "errors; partly failed ×2 (left out)".
func (r Row) outcomeCell() string {
	cell := strings.Join(r.Outcomes, ", ")
	for _, f := range slices.Sorted(maps.Keys(r.Flagged)) {
		cell += fmt.Sprintf("; %s ×%d", f, r.Flagged[f])
		if f.Withholds() {
			cell += " (left out)"
		}
	}
	return cell
}

// latenessCell is the row's generator lateness at p99, empty for a case
// that recorded none (a closed loop).
func (r Row) latenessCell() string {
	if !r.Late {
		return ""
	}
	return r.LatenessP99Us.format(1000, 3, r.Reps)
}

// feedCell is a feed's figure as tables show it, empty for a case of one
// reply a call.
func (r Row) feedCell(s Spread, unit float64, digits int) string {
	if !r.Fed {
		return ""
	}
	return s.format(unit, digits, r.Reps)
}

// CapacityCell is the row's capacity at its SLA as tables show it:
// "≥ " before a lower bound, "none" when no rate met the SLA, empty for a
// case that searched none.
func (r Row) CapacityCell() string {
	switch {
	case !r.Searched:
		return ""
	case r.Reps == 0:
		return "not measured"
	case r.Capacity.Max == 0 || r.Reps == 1:
		return r.Search.String()
	case r.LowerBound:
		return "≥ " + r.Capacity.format(1, 0, r.Reps)
	}
	return r.Capacity.format(1, 0, r.Reps)
}

// Table is the summary table of rows: Header and each row's Cells, after
// a part column when the experiment has parts, with a capacity column
// after req/s when it has capacity searches, and the generator's
// lateness after p99 when it has open loops that recorded it.
func Table(rows []Row) (header []string, cells [][]string) {
	parts := slices.ContainsFunc(rows, func(r Row) bool { return r.Part != "" })
	searched := slices.ContainsFunc(rows, func(r Row) bool { return r.Searched })
	late := slices.ContainsFunc(rows, func(r Row) bool { return r.Late })
	fed := slices.ContainsFunc(rows, func(r Row) bool { return r.Fed })
	rpsAt, lateAt := slices.Index(Header, "req/s")+1, slices.Index(Header, "p99 ms")+1
	header = slices.Clone(Header)
	// Inserted right to left, so that each index still holds.
	if late {
		header = slices.Insert(header, lateAt, "lateness p99 ms")
	}
	if fed {
		header = slices.Insert(header, lateAt, "first message p50 ms")
	}
	if fed {
		header = slices.Insert(header, rpsAt, "messages/s")
	}
	if searched {
		header = slices.Insert(header, rpsAt, "capacity req/s")
	}
	if parts {
		header = append([]string{"part"}, header...)
	}
	for _, r := range rows {
		c := r.Cells()
		if late {
			c = slices.Insert(c, lateAt, r.latenessCell())
		}
		if fed {
			c = slices.Insert(c, lateAt, r.feedCell(r.FirstP50Us, 1000, 3))
		}
		if fed {
			c = slices.Insert(c, rpsAt, r.feedCell(r.MessagesPerS, 1, 0))
		}
		if searched {
			c = slices.Insert(c, rpsAt, r.CapacityCell())
		}
		if parts {
			c = append([]string{r.Part}, c...)
		}
		cells = append(cells, c)
	}
	return header, cells
}

func errorShare(errs, reqs int64) string {
	if errs == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%.1f%%)", errs, 100*float64(errs)/float64(max(reqs, 1)))
}

// Markdown writes the rows as a Markdown table; spreads read "median
// (min–max)" when there are repetitions.
func Markdown(w io.Writer, rows []Row) error {
	line := func(cells []string) string { return "| " + strings.Join(cells, " | ") + " |\n" }
	var b strings.Builder
	header, cells := Table(rows)
	b.WriteString(line(header))
	seps := make([]string, len(header))
	for i := range seps {
		seps[i] = "---"
	}
	b.WriteString(line(seps))
	for _, c := range cells {
		b.WriteString(line(c))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CSV writes one row per case with every spread's median, min and max.
func CSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"case", "part", "stack", "topology", "op", "model", "count", "load", "options", "reps", "outcomes", "requests", "errors",
		"rps_median", "rps_min", "rps_max", "p50_us_median", "p50_us_min", "p50_us_max",
		"p99_us_median", "p99_us_min", "p99_us_max", "client_cpu_us_per_req_median",
		"capacity_rps_median", "capacity_rps_min", "capacity_rps_max", "capacity_lower_bound", "flagged",
		"first_message_p50_us_median", "first_message_p99_us_median", "messages_per_s_median"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, r := range rows {
		cw.Write(append([]string{r.Case, r.Part, r.Stack, r.Topology, r.Op, r.Model, strconv.Itoa(r.Count), r.Load, r.Options, strconv.Itoa(r.Reps),
			strings.Join(r.Outcomes, ";"), strconv.FormatInt(r.Requests, 10), strconv.FormatInt(r.Errors, 10),
			g(r.RPS.Median), g(r.RPS.Min), g(r.RPS.Max), g(r.P50Us.Median), g(r.P50Us.Min), g(r.P50Us.Max),
			g(r.P99Us.Median), g(r.P99Us.Min), g(r.P99Us.Max), g(r.CPUUsPerReq.Median)}, append(append(r.capacityCSV(), r.flaggedCSV()), r.feedCSV()...)...))
	}
	cw.Flush()
	return cw.Error()
}

// feedCSV is the row's feed columns: empty for a case of one reply a call.
func (r Row) feedCSV() []string {
	if !r.Fed {
		return []string{"", "", ""}
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return []string{g(r.FirstP50Us.Median), g(r.FirstP99Us.Median), g(r.MessagesPerS.Median)}
}

// flaggedCSV is each flag with its runs: "partly failed:2".
func (r Row) flaggedCSV() string {
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(r.Flagged)) {
		parts = append(parts, fmt.Sprintf("%s:%d", f, r.Flagged[f]))
	}
	return strings.Join(parts, ";")
}

// capacityCSV is the row's capacity columns: empty for a case that
// searched none.
func (r Row) capacityCSV() []string {
	if !r.Searched || r.Reps == 0 {
		return []string{"", "", "", ""}
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return []string{g(r.Capacity.Median), g(r.Capacity.Min), g(r.Capacity.Max), strconv.FormatBool(r.LowerBound)}
}
