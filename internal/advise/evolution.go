package advise

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/transport"
)

// Evolution is what a stack's codec did to messages of the schema's
// changes through chains of mixed versions, as measured by schema trials
// (record.evolution): each change over each mixed path counts once, kept
// when every trial of it came back as sent.
type Evolution struct {
	Kept, Sent int
	// Lost names each change and path not kept, with how: "field-added
	// over v2,v1,v2: dropped".
	Lost []string
	// From names the runs the trials came from.
	From string
}

// share is the part of the changes kept.
func (e *Evolution) share() float64 { return float64(e.Kept) / float64(max(e.Sent, 1)) }

// evolutions reads the schema trials of recs by stack, over mixed paths
// only (a path of one version keeps everything by construction).
func evolutions(recs []results.Record) map[string]*Evolution {
	worst := map[string]map[string]evolution.Outcome{} // stack -> "change over path" -> outcome
	from := map[string][]string{}
	for _, r := range recs {
		for _, t := range r.Evolution {
			p, err := evolution.ParsePath(t.Path)
			if err != nil || !p.Mixed() || t.Outcome == evolution.NotSent {
				continue
			}
			if worst[r.Stack] == nil {
				worst[r.Stack] = map[string]evolution.Outcome{}
			}
			k := t.Change + " over " + t.Path
			worst[r.Stack][k] = worse(worst[r.Stack][k], t)
			if cite := fmt.Sprintf("%s run %d", r.Experiment, r.Run); !slices.Contains(from[r.Stack], cite) {
				from[r.Stack] = append(from[r.Stack], cite)
			}
		}
	}
	out := map[string]*Evolution{}
	for stack, byTrial := range worst {
		e := &Evolution{Sent: len(byTrial), From: strings.Join(from[stack], ", ")}
		for _, k := range slices.Sorted(maps.Keys(byTrial)) {
			if o := byTrial[k]; o == evolution.Kept {
				e.Kept++
			} else {
				e.Lost = append(e.Lost, k+": "+string(o))
			}
		}
		out[stack] = e
	}
	return out
}

// codecEvolutions judges each of stacks by the trials of its body codec
// (transport.BodyCodec: gRPC's is proto), the user's change tried in
// process (hopbench evolve): stacks whose codec was not tried get none.
func codecEvolutions(trials []evolution.Trial, stacks []string) map[string]*Evolution {
	out := map[string]*Evolution{}
	for _, name := range stacks {
		st, err := transport.ParseStack(name)
		if err != nil {
			continue
		}
		tr, err := transport.Lookup(st.Transport)
		if err != nil {
			continue
		}
		c, _, err := transport.BodyCodec(tr, st)
		if err != nil {
			continue
		}
		rec := results.Record{Stack: name, Experiment: "your change tried in process in " + c.Name() + " (hopbench evolve)"}
		for _, t := range trials {
			if t.Codec == c.Name() {
				rec.Evolution = append(rec.Evolution, t)
			}
		}
		if len(rec.Evolution) > 0 {
			e := evolutions([]results.Record{rec})[name]
			e.From = rec.Experiment
			out[name] = e
		}
	}
	return out
}

// worse is the worse of an outcome so far and a trial's: corrupted (or a
// misread of other fields) over dropped over refused over kept.
func worse(o evolution.Outcome, t evolution.Trial) evolution.Outcome {
	rank := func(o evolution.Outcome) int {
		return slices.Index([]evolution.Outcome{"", evolution.Kept, evolution.Refused, evolution.Dropped, evolution.Corrupted}, o)
	}
	got := t.Outcome
	if t.Others == evolution.Corrupted {
		got = evolution.Corrupted
	}
	if rank(got) > rank(o) {
		return got
	}
	return o
}

// schemaEvolution judges a stack for a schema that must change safely:
// from its trials when measured (every change kept through nodes of the
// other version, or unmet naming what was not), else from what its codec
// declares, saying it was not measured.
func schemaEvolution(req Requirements, st transport.Stack, measured *Evolution, declared string, s *Stack) {
	if measured == nil {
		switch {
		case req.SchemaEvolution && declared == "":
			s.Unmet = append(s.Unmet, "schema evolution: "+st.Codec+" bodies carry no schema; compatibility rests on every reader tolerating unknown and missing fields (declared, not measured: run the evolution preset)")
		case declared != "":
			s.TradeOffs = append(s.TradeOffs, "schema: "+declared)
		}
		return
	}
	s.Evolution = measured
	s.Evidence = append(s.Evidence, fmt.Sprintf("schema trials: %d of %d changes kept through nodes of the other version (%s)", measured.Kept, measured.Sent, measured.From))
	if req.SchemaEvolution && len(measured.Lost) > 0 {
		s.Unmet = append(s.Unmet, "schema evolution, measured: "+strings.Join(measured.Lost, "; "))
	}
	if declared != "" {
		s.TradeOffs = append(s.TradeOffs, "schema: "+declared)
	}
}
