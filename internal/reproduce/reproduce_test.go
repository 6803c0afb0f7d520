package reproduce

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/results"
	_ "github.com/hopbench/hopbench/internal/transport/all"
	"github.com/hopbench/hopbench/reference"
)

func rec(part, stack string, count int, options, outcome string, p50Us int64, sent float64) results.Record {
	r := results.Record{Part: part, Stack: stack, Op: "get", Model: "user", Count: count, Load: "closed:1", Options: options, Outcome: outcome}
	r.Case = strings.Join([]string{part, stack, options}, " ") + " " + string(rune('0'+count%10))
	r.P50Us, r.Wire = p50Us, &results.WirePerRequest{Sent: sent, Received: 2 * sent}
	return r
}

func study(findings ...reference.Finding) *reference.Study {
	return &reference.Study{Study: "s", Figures: []reference.Figure{{ID: "a", Value: 2}, {ID: "b", Value: 1}}, Findings: findings}
}

func finding(id, measure, holds string, num, den map[string]string) reference.Finding {
	return reference.Finding{ID: id, Claim: id, Ratio: [2]string{"a", "b"}, HoldsWhen: holds, Here: reference.Here{Measure: measure, Num: num, Den: den}}
}

func TestCheckComputesEachFindingFromTheRecords(t *testing.T) {
	m := Measured{
		Records: []results.Record{
			rec("p", "rest", 5, "", results.OutcomeOK, 2000, 900),
			rec("p", "rest", 5, "", results.OutcomeOK, 4000, 900), // a repetition: the median is 3 ms
			rec("p", "rest+proto", 5, "", results.OutcomeOK, 1000, 600),
			rec("p", "rest+gzip", 5, "cache", results.OutcomeOK, 500, 300),
			rec("big", "rest", 300000, "", results.OutcomeOutOfMemory, 0, 0),
			rec("big", "rest+proto", 300000, "", results.OutcomeOK, 9000, 100),
			rec("q", "rest+gzip", 7, "", results.OutcomeOK, 1020, 100),
		},
		Codecs: []codecbench.Record{{Model: "recipe", Count: 1, Codec: "json", Compress: "none", MarshalNs: 600}, {Model: "recipe", Count: 1, Codec: "proto", Compress: "none", MarshalNs: 100}},
	}
	s := study(
		finding("faster", "p50", "greater than 1", map[string]string{"part": "p", "stack": "rest"}, map[string]string{"part": "p", "stack": "rest+proto"}),
		finding("wrong-way", "request_wire_bytes", "less than 1", map[string]string{"part": "p", "stack": "rest"}, map[string]string{"part": "p", "stack": "rest+proto"}),
		finding("canonical-stack", "p50", "less than 1", map[string]string{"stack": "rest+json+gzip", "cache": "true"}, map[string]string{"stack": "rest", "part": "p"}),
		finding("oom", "completed", "less than 1", map[string]string{"part": "big", "stack": "rest"}, map[string]string{"part": "big", "stack": "rest+proto"}),
		finding("oom-latency", "p50", "less than 1", map[string]string{"part": "big", "stack": "rest"}, map[string]string{"part": "big", "stack": "rest+proto"}),
		finding("codec", "marshal_ns", "greater than 1", map[string]string{"codec": "json"}, map[string]string{"codec": "proto"}),
		finding("missing", "p50", "less than 1", map[string]string{"stack": "grpc"}, map[string]string{"stack": "rest"}),
		finding("ambiguous", "p50", "less than 1", map[string]string{"part": "p"}, map[string]string{"stack": "rest"}),
		finding("close", "p50", "greater than 1", map[string]string{"part": "p", "stack": "rest+proto"}, map[string]string{"part": "q"}),
		finding("floor", "p50", "less than 1", map[string]string{"part": "p", "stack": "rest+proto", "measure": "floor"}, map[string]string{"part": "p", "stack": "rest"}),
	)
	rows := Check(s, m)
	want := []struct {
		verdict Verdict
		ratio   float64
		why     string
	}{
		{Holds, 3, ""},
		{DoesNotHold, 1.5, ""},
		{Holds, 0.5 / 3, ""},
		{Holds, 0, ""},
		{NotMeasured, 0, "no run completed (out of memory"},
		{Holds, 6, ""},
		{NotMeasured, 0, "no run with stack=grpc"},
		{NotMeasured, 0, "picks 3 different cases"},
		{Close, 1000.0 / 1020, ""},
		{NotMeasured, 0, "without calibration"},
	}
	for i, w := range want {
		r := rows[i]
		if r.Verdict != w.verdict || r.Ratio != w.ratio || !strings.Contains(r.Why, w.why) {
			t.Errorf("%s: %s ×%v (%s); want %s ×%v (%s)", r.Finding.ID, r.Verdict, r.Ratio, r.Why, w.verdict, w.ratio, w.why)
		}
	}
	_, cells := Table(rows)
	if len(cells) != len(rows) || !strings.Contains(cells[0][4], "3 ms, median of 2 runs (p rest  5) / 1 ms") || cells[6][3] != "–" {
		t.Errorf("table: %q / %q", cells[0], cells[6])
	}
}

// With MinRuns runs a side, a significance test over the runs decides a
// timing's direction instead of the 5 % band: a steady 3 % difference
// holds, a 20 % difference between runs that overlap is too close to call.
func TestRepeatedRunsAreJudgedByTheirSpread(t *testing.T) {
	runs := func(part string, p50s ...int64) []results.Record {
		var out []results.Record
		for _, p := range p50s {
			out = append(out, rec(part, "rest", 5, "", results.OutcomeOK, p, 1))
		}
		return out
	}
	var recs []results.Record
	recs = append(recs, runs("steady-a", 1030, 1031, 1029, 1032, 1030)...)
	recs = append(recs, runs("steady-b", 1000, 1001, 999, 1002, 1000)...)
	recs = append(recs, runs("scattered-a", 600, 1200, 2000, 900, 1800)...)
	recs = append(recs, runs("scattered-b", 700, 1000, 2100, 800, 1500)...)
	recs = append(recs, runs("few-a", 1030, 1031, 1029)...)
	recs = append(recs, runs("few-b", 1000, 1001, 999)...)
	sel := func(part string) map[string]string { return map[string]string{"part": part} }
	rows := Check(study(
		finding("steady", "p50", "greater than 1", sel("steady-a"), sel("steady-b")),
		finding("scattered", "p50", "greater than 1", sel("scattered-a"), sel("scattered-b")),
		finding("few", "p50", "greater than 1", sel("few-a"), sel("few-b")),
	), Measured{Records: recs})
	for i, w := range []struct {
		verdict Verdict
		why     string
	}{
		{Holds, "Mann–Whitney U over 5 and 5 runs: p="},
		{Close, "no significant difference"},
		{Close, ""}, // three runs a side: the 5 % band
	} {
		if r := rows[i]; r.Verdict != w.verdict || !strings.Contains(r.Why, w.why) || w.why == "" && r.Why != "" {
			t.Errorf("%s: %s ×%.3f (%s); want %s (%s)", r.Finding.ID, r.Verdict, r.Ratio, r.Why, w.verdict, w.why)
		}
	}
	if _, cells := Table(rows); !strings.Contains(cells[1][4], "median of 5 runs") || !strings.Contains(cells[1][4], "no significant difference") {
		t.Errorf("table row %q: want the runs and the test named", cells[1][4])
	}
}

// Every finding of every study names a measure this package computes and
// selects with keys it knows, so no row can be missing for want of a
// mapping.
func TestEveryStudyFindingIsMeasurable(t *testing.T) {
	studies, err := reference.Load()
	if err != nil {
		t.Fatal(err)
	}
	known := []string{"measure", "part", "stack", "topology", "op", "model", "count", "load", "tls", "cache", "h2", "mtls", "codec", "compress"}
	for _, s := range studies {
		for _, f := range s.Findings {
			if _, ok := Measures[f.Here.Measure]; !ok {
				t.Errorf("%s/%s: unknown measure %q", s.Study, f.ID, f.Here.Measure)
			}
			for _, sel := range []map[string]string{f.Here.Num, f.Here.Den} {
				for k, v := range sel {
					if !slices.Contains(known, k) || k == "measure" && Measures[v] == "" {
						t.Errorf("%s/%s: selector %s=%s", s.Study, f.ID, k, v)
					}
				}
			}
		}
	}
}

func TestServerTimeIsTheEntryNodesTotalPhase(t *testing.T) {
	r := rec("p", "rest", 5, "", results.OutcomeOK, 1000, 1)
	r.Nodes = []results.Node{
		{Index: 1, Stats: json.RawMessage(`{"phases_us":{"total":{"mean_us":100}}}`)},
		{Index: 0, Stats: json.RawMessage(`{"phases_us":{"total":{"mean_us":2500}}}`)},
	}
	if v, err := recordValue(&r, "server_ms"); err != nil || v != 2.5 {
		t.Errorf("server_ms %v, %v; want 2.5", v, err)
	}
}

// Anonymous RSS is the largest node's, in MiB; a record from before it was
// kept says so rather than counting as zero.
func TestAnonymousRSSIsTheLargestNodes(t *testing.T) {
	r := rec("p", "rest", 5, "", results.OutcomeOK, 1000, 1)
	r.Nodes = []results.Node{{Usage: results.Usage{RSSBytes: 40 << 20, AnonRSS: 8 << 20}}, {Usage: results.Usage{RSSBytes: 39 << 20, AnonRSS: 12 << 20}}}
	if v, err := recordValue(&r, "anon_rss"); err != nil || v != 12 {
		t.Errorf("anon_rss %v, %v; want 12", v, err)
	}
	if v, err := recordValue(&r, "rss"); err != nil || v != 0 {
		t.Errorf("rss (peak, none recorded) %v, %v; want 0", v, err)
	}
	r.Nodes = []results.Node{{Usage: results.Usage{RSSBytes: 40 << 20}}}
	if _, err := recordValue(&r, "anon_rss"); err == nil || !strings.Contains(err.Error(), "run again") {
		t.Errorf("anon_rss of an older record: %v; want an error saying to run again", err)
	}
}

func TestBinarySizeIsWhatAStackAloneAdds(t *testing.T) {
	var b Binaries
	if err := json.Unmarshal([]byte(`{"go": "go1.26", "flags": "-trimpath", "binaries": [
		{"stack": "none", "bytes": 1000}, {"stack": "grpc", "bytes": 1800}, {"stack": "graphql", "bytes": 3400}]}`), &b); err != nil {
		t.Fatal(err)
	}
	s := study(finding("app", "binary_added_bytes", "greater than 1", map[string]string{"stack": "graphql"}, map[string]string{"stack": "grpc"}))
	if r := Check(s, Measured{Binaries: &b})[0]; r.Verdict != Holds || r.Ratio != 3 {
		t.Errorf("%s ×%v (%s); want holds ×3", r.Verdict, r.Ratio, r.Why)
	}
	if r := Check(s, Measured{})[0]; r.Verdict != NotMeasured || !strings.Contains(r.Why, "scripts/binsize.sh") {
		t.Errorf("without sizes: %s (%s)", r.Verdict, r.Why)
	}
}
