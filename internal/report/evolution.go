package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/results"
)

// schemaOption is the word of a record's options that names its schema.
const schemaOption = "schema:"

// evolution reports the schema trials of runs with a schema set: for each
// path, what came back of each change in each stack, the detail of every
// refusal and corruption, and what a mixed chain costs against the same
// chain of the sender's version alone.
func (b *builder) evolution(recs []results.Record) error {
	trials := evolutionTrials(recs)
	if len(trials) == 0 {
		return nil
	}
	s := b.section("evolution", "Schema evolution: what survives a chain of mixed versions",
		"Before its load, each run with a schema sent one message of each change v2 makes to v1 (schema/hopbench/v2) through its live nodes in echo, at 1 and at 3 items, each node decoding into its own version and encoding on, and compared what came back with what was sent, field by field. kept: as sent; dropped: came back empty (silently lost); corrupted: came back with another value; refused: a node or the sender could not decode the message; not sent: the sender's version has no such field. \"others\" is every field no change touches: a codec that misreads one field as another shows there. A cell gives both counts when they differ; every repetition's trial is counted.")
	var paths []string
	for _, t := range trials {
		if !slices.Contains(paths, t.path) {
			paths = append(paths, t.path)
		}
	}
	slices.SortStableFunc(paths, func(a, b string) int { return comparePaths(a, b) })
	for _, path := range paths {
		b.addTable(s, "Path "+path+": outcome by stack and change", outcomeCaption(path), outcomeTable(trials, path))
	}
	if d := detailTable(trials); len(d.Rows) > 0 {
		b.addTable(s, "Refused and corrupted: what happened", "Where each message was refused and why, or what a corrupted value became: one row for each stack, path, outcome and what happened, with the changes and item counts that met it.", d)
	}
	return b.evolutionCost(s, recs)
}

// comparePaths orders paths mixed first, then by their text, later
// versions first ("v2,v1,v2" before "v1,v2,v1").
func comparePaths(a, b string) int {
	pa, _ := evolution.ParsePath(a)
	pb, _ := evolution.ParsePath(b)
	if ma, mb := len(pa) > 0 && pa.Mixed(), len(pb) > 0 && pb.Mixed(); ma != mb {
		if ma {
			return -1
		}
		return 1
	}
	return strings.Compare(b, a)
}

// outcomeCaption says how to read a path.
func outcomeCaption(path string) string {
	p, err := evolution.ParsePath(path)
	if err != nil || !p.Mixed() {
		return fmt.Sprintf("The sender and every node speak %s: every field should come back kept (a check of the trials themselves).", path)
	}
	return fmt.Sprintf("A sender of %s, then nodes of %s, entry first; the last node echoes and the reply passes the nodes back.", p[0], p[1:])
}

// stackTrial is one trial of a record, with its stack and path.
type stackTrial struct {
	stack, path string
	evolution.Trial
}

func evolutionTrials(recs []results.Record) []stackTrial {
	var out []stackTrial
	for _, r := range recs {
		for _, t := range r.Evolution {
			out = append(out, stackTrial{stack: r.Stack, path: t.Path, Trial: t})
		}
	}
	return out
}

// outcomeTable is path's stacks × changes: the changes its trials tried,
// in the order they were tried (the payload schema's, or a user's two
// versions').
func outcomeTable(trials []stackTrial, path string) Table {
	t := Table{Header: []string{"stack"}}
	var stacks, changes []string
	cells := map[string][]evolution.Trial{} // stack change
	for _, tr := range trials {
		if tr.path != path {
			continue
		}
		if !slices.Contains(stacks, tr.stack) {
			stacks = append(stacks, tr.stack)
		}
		if !slices.Contains(changes, tr.Change) {
			changes = append(changes, tr.Change)
		}
		k := tr.stack + " " + tr.Change
		cells[k] = append(cells[k], tr.Trial)
	}
	t.Header = append(t.Header, changes...)
	slices.Sort(stacks)
	for _, st := range stacks {
		row := []string{st}
		for _, ch := range changes {
			row = append(row, outcomeCell(cells[st+" "+ch]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// outcomeCell reads a cell's trials: one outcome when every count and
// repetition agrees, else each count's ("kept ×3; corrupted ×1"), and
// what became of the other fields when it was not kept.
func outcomeCell(ts []evolution.Trial) string {
	if len(ts) == 0 {
		return "–"
	}
	byCount := map[int][]string{}
	var counts []int
	for _, t := range ts {
		w := string(t.Outcome)
		if t.Others != evolution.Kept && t.Others != t.Outcome {
			w += ", others " + string(t.Others)
		}
		if !slices.Contains(counts, t.Count) {
			counts = append(counts, t.Count)
		}
		if !slices.Contains(byCount[t.Count], w) {
			byCount[t.Count] = append(byCount[t.Count], w)
		}
	}
	slices.Sort(counts)
	first := strings.Join(byCount[counts[0]], " or ")
	same := true
	for _, c := range counts {
		same = same && strings.Join(byCount[c], " or ") == first
	}
	if same {
		return first
	}
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = fmt.Sprintf("%s ×%d", strings.Join(byCount[c], " or "), c)
	}
	return strings.Join(parts, "; ")
}

// detailTable lists the refused and corrupted trials with what happened,
// one row for each stack, path, outcome and words, naming the changes and
// item counts that met them.
func detailTable(trials []stackTrial) Table {
	type row struct {
		changes, counts []string
	}
	var keys [][4]string // stack, path, outcome, detail
	rows := map[[4]string]*row{}
	for _, tr := range trials {
		if tr.Outcome != evolution.Refused && tr.Outcome != evolution.Corrupted && tr.Others != evolution.Corrupted {
			continue
		}
		k := [4]string{tr.stack, tr.path, string(tr.Outcome), tr.Detail}
		if rows[k] == nil {
			keys = append(keys, k)
			rows[k] = &row{}
		}
		r := rows[k]
		if !slices.Contains(r.changes, tr.Change) {
			r.changes = append(r.changes, tr.Change)
		}
		if c := fmt.Sprint(tr.Count); !slices.Contains(r.counts, c) {
			r.counts = append(r.counts, c)
		}
	}
	slices.SortStableFunc(keys, func(a, b [4]string) int { return strings.Compare(a[0]+" "+a[1], b[0]+" "+b[1]) })
	t := Table{Header: []string{"stack", "path", "changes", "items", "outcome", "what happened"}}
	for _, k := range keys {
		r := rows[k]
		slices.Sort(r.counts)
		t.Rows = append(t.Rows, []string{k[0], k[1], strings.Join(r.changes, ", "), strings.Join(r.counts, ", "), k[2], k[3]})
	}
	return t
}

// schemaOf is the schema a case's options name ("" for none).
func schemaOf(options string) string {
	for _, w := range strings.Fields(options) {
		if s, ok := strings.CutPrefix(w, schemaOption); ok {
			return s
		}
	}
	return ""
}

// baselineOptions are the options of the case a mixed one is costed
// against: the same with the sender's version alone, written either way.
func baselineOptions(options string, p evolution.Path) []string {
	fields := strings.Fields(options)
	i := slices.Index(fields, schemaOption+p.String())
	uniform := slices.Repeat(evolution.Path{p[0]}, len(p))
	var out []string
	for _, base := range []string{string(p[0]), uniform.String()} {
		f := slices.Clone(fields)
		f[i] = schemaOption + base
		out = append(out, strings.Join(f, " "))
	}
	return out
}

// evolutionCost sets each case of a mixed path beside the same case with
// the sender's version alone: latency (ratio of medians with its interval
// and the runs behind it), bytes on the wire at the client and the nodes'
// CPU per request. A mixed case whose calls all failed is shown too.
func (b *builder) evolutionCost(s *Section, recs []results.Record) error {
	p50s := okP50s(recs)
	byStack := slices.Clone(b.cases)
	slices.SortStableFunc(byStack, func(x, y *measured) int { return strings.Compare(x.Stack, y.Stack) })
	pairs := twinsOf(byStack, b.cases, func(options string) []string {
		p, err := evolution.ParsePath(schemaOf(options))
		if err != nil || !p.Mixed() {
			return nil
		}
		return baselineOptions(options, p)
	})
	tables := map[string]*Table{}
	var views []string
	charts := map[string]*[2]bars{}
	ratios := map[string][]point{}
	stacks := map[string][]string{}
	for _, pair := range pairs {
		c, base := pair.with, pair.without
		v := c.scenario()
		if tables[v] == nil {
			p, _ := evolution.ParsePath(schemaOf(c.Options)) // a mixed path: twinsOf paired it
			sender := string(p.Sender())
			views = append(views, v)
			tables[v] = &Table{Header: []string{"stack", "p50 ms mixed", "p50 ms " + sender + " alone", "mixed/alone p50", "client bytes/req mixed", "alone", "node CPU µs/req mixed", "alone"}}
			charts[v] = &[2]bars{{Name: "mixed"}, {Name: sender + " alone"}}
		}
		mixed, alone := costCells(c, len(p50s[c.Case]) > 0), costCells(base, len(p50s[base.Case]) > 0)
		tables[v].Rows = append(tables[v].Rows, []string{c.Stack, mixed[0], alone[0], ratioCell(p50s[c.Case], p50s[base.Case]),
			mixed[1], alone[1], mixed[2], alone[2]})
		if len(p50s[c.Case]) > 0 && len(p50s[base.Case]) > 0 {
			stacks[v] = append(stacks[v], c.Stack)
			ratios[v] = append(ratios[v], point{stack: c.Stack, v: c.P50Us.Median / base.P50Us.Median})
			charts[v][0].Values = append(charts[v][0].Values, c.P50Us.Median/1000)
			charts[v][1].Values = append(charts[v][1].Values, base.P50Us.Median/1000)
		}
	}
	for _, v := range views {
		caption := "The load of the run after its trials: the same generator, payload and load on a chain of mixed versions and on one of the sender's version alone. A mixed chain that drops fields carries fewer bytes: what it loses, not what it saves."
		if len(stacks[v]) == 0 {
			b.addTable(s, v+": mixed and alone", caption, *tables[v])
			continue
		}
		if err := b.add(s, finding("p50 mixed against alone", false, ratios[v], timesWords), caption, *tables[v])(stackBarChart(v+": p50 mixed and alone", "ms", stacks[v], charts[v][:])); err != nil {
			return err
		}
	}
	return nil
}

// costCells are a case's p50, bytes per request at the client (both
// ways) and nodes' CPU per request; a case no run of which ended ok has
// none of them.
func costCells(c *measured, ok bool) [3]string {
	if !ok {
		return [3]string{"calls failed", "–", "–"}
	}
	wire := "–"
	if c.HasWire {
		wire = num(c.WireSent+c.WireReceived, 0)
	}
	return [3]string{ms(c.P50Us.Median), wire, num(c.NodesCPU, 1)}
}
