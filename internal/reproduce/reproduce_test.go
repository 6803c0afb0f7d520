package reproduce

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/codecbench"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
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

// directionOnly makes f a claim whose text gives no ratio.
func directionOnly(f reference.Finding) reference.Finding {
	f.Ratio, f.Stated = [2]string{}, &reference.Stated{Quote: f.Claim, Where: "x"}
	return f
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
			rec("huge", "rest", 300000, "", results.OutcomeOutOfMemory, 0, 0),
			rec("huge", "rest+proto", 300000, "", results.OutcomeOutOfMemory, 0, 0),
			rec("q", "rest+gzip", 7, "", results.OutcomeOK, 1020, 100),
		},
		Codecs: []codecbench.Record{{Model: "recipe", Count: 1, Codec: "json", Compress: "none", MarshalNs: 600}, {Model: "recipe", Count: 1, Codec: "proto", Compress: "none", MarshalNs: 100}},
	}
	s := study(
		finding("bytes-way-off", "request_wire_bytes", "greater than 1", map[string]string{"part": "p", "stack": "rest"}, map[string]string{"part": "p", "stack": "rest+proto"}),
		finding("wrong-way", "request_wire_bytes", "less than 1", map[string]string{"part": "p", "stack": "rest"}, map[string]string{"part": "p", "stack": "rest+proto"}),
		finding("one-run-a-side", "p50", "less than 1", map[string]string{"stack": "rest+json+gzip", "cache": "true"}, map[string]string{"stack": "rest", "part": "p"}),
		directionOnly(finding("oom", "completed", "less than 1", map[string]string{"part": "big", "stack": "rest"}, map[string]string{"part": "big", "stack": "rest+proto"})),
		directionOnly(finding("oom-both", "completed", "less than 1", map[string]string{"part": "huge", "stack": "rest"}, map[string]string{"part": "huge", "stack": "rest+proto"})),
		finding("oom-latency", "p50", "less than 1", map[string]string{"part": "big", "stack": "rest"}, map[string]string{"part": "big", "stack": "rest+proto"}),
		finding("missing", "p50", "less than 1", map[string]string{"stack": "grpc"}, map[string]string{"stack": "rest"}),
		finding("ambiguous", "p50", "less than 1", map[string]string{"part": "p"}, map[string]string{"stack": "rest"}),
		finding("floor", "p50", "less than 1", map[string]string{"part": "p", "stack": "rest+proto", "measure": "floor"}, map[string]string{"part": "p", "stack": "rest"}),
	)
	rows := Check(s, m)
	want := []struct {
		verdict Verdict
		ratio   float64
		why     string
	}{
		{DirectionOnly, 1.5, ""}, // the paper's ×2 is more than 10 % away
		{DoesNotHold, 1.5, ""},
		{Inconclusive, 0.5 / 3, "1 and 2 runs cannot show"},
		{Holds, 0, ""},
		{DoesNotHold, 1, "neither side completed a run"}, // killed on both sides: a tie, not a gap
		{NotMeasured, 0, "no run completed without errors (out of memory"},
		{NotMeasured, 0, "no run with stack=grpc"},
		{NotMeasured, 0, "picks 3 different cases"},
		{NotMeasured, 0, "without calibration"},
	}
	for i, w := range want {
		r := rows[i]
		if r.Verdict != w.verdict || r.Ratio != w.ratio || !strings.Contains(r.Why, w.why) {
			t.Errorf("%s: %s ×%v (%s); want %s ×%v (%s)", r.Finding.ID, r.Verdict, r.Ratio, r.Why, w.verdict, w.ratio, w.why)
		}
	}
	if !strings.HasPrefix(rows[0].Degree, "weaker here than in the paper") {
		t.Errorf("bytes-way-off degree %q", rows[0].Degree)
	}
	_, cells := Table(rows)
	if len(cells) != len(rows) || !strings.Contains(cells[2][5], "3 ms, median of 2 runs (p rest  5)") || cells[5][3] != "–" || cells[0][4] != "exact" {
		t.Errorf("table: %q / %q / %q", cells[0], cells[2], cells[5])
	}
}

func runs(part, stack string, p50s ...int64) []results.Record {
	var out []results.Record
	for _, p := range p50s {
		out = append(out, rec(part, stack, 5, "", results.OutcomeOK, p, 1))
	}
	return out
}

// Five runs a side decide a direction by a Mann–Whitney U test, and an
// interval over the runs decides its degree: a steady ×0.9 against the
// paper's ×0.5 holds in direction only; runs that overlap decide nothing;
// the paper's ratio inside the interval holds.
func TestVerdictsWeighDirectionAndDegree(t *testing.T) {
	var recs []results.Record
	recs = append(recs, runs("steady", "rest+proto", 880, 900, 920, 895, 905)...)
	recs = append(recs, runs("steady", "rest", 1000, 1001, 999, 1002, 998)...)
	recs = append(recs, runs("scattered", "rest+proto", 600, 1200, 2000, 900, 1800)...)
	recs = append(recs, runs("scattered", "rest", 700, 1000, 2100, 800, 1500)...)
	recs = append(recs, runs("half", "rest+proto", 480, 510, 500, 495, 520)...)
	recs = append(recs, runs("half", "rest", 1000, 1001, 999, 1002, 998)...)
	recs = append(recs, runs("slower", "rest+proto", 1300, 1310, 1290, 1305, 1295)...)
	recs = append(recs, runs("slower", "rest", 1000, 1001, 999, 1002, 998)...)
	sel := func(part, stack string) map[string]string { return map[string]string{"part": part, "stack": stack} }
	f := func(part string) reference.Finding {
		return finding(part, "p50", "less than 1", sel(part, "rest+proto"), sel(part, "rest"))
	}
	s := &reference.Study{Figures: []reference.Figure{{ID: "a", Value: 1}, {ID: "b", Value: 2}}}
	s.Findings = []reference.Finding{f("steady"), f("scattered"), f("half"), f("slower")}
	rows := Check(s, Measured{Records: recs})
	for i, w := range []struct {
		verdict Verdict
		test    string
	}{
		{DirectionOnly, "Mann–Whitney U, 5 and 5 runs: p="},
		{Inconclusive, "Mann–Whitney U"},
		{Holds, "Mann–Whitney U"},
		{DoesNotHold, "Mann–Whitney U"},
	} {
		r := rows[i]
		if r.Verdict != w.verdict || !strings.Contains(r.Test, w.test) || r.Low == 0 || r.Low > r.Ratio || r.High < r.Ratio {
			t.Errorf("%s: %s ×%.3f [%.3f, %.3f] (%s; %s); want %s", r.Finding.ID, r.Verdict, r.Ratio, r.Low, r.High, r.Test, r.Why, w.verdict)
		}
	}
	if !strings.HasPrefix(rows[0].Degree, "weaker here than in the paper") || rows[0].High > 0.95 {
		t.Errorf("steady ×0.9 against ×0.5: degree %q, interval [%.3f, %.3f]", rows[0].Degree, rows[0].Low, rows[0].High)
	}
	if !strings.Contains(rows[1].Why, "more runs") {
		t.Errorf("inconclusive without saying what would decide it: %q", rows[1].Why)
	}
	for _, v := range []Verdict{rows[0].Verdict, rows[1].Verdict, rows[2].Verdict, rows[3].Verdict} {
		if !slices.Contains(Verdicts, v) {
			t.Errorf("verdict %q is not one of the six", v)
		}
	}
	if _, cells := Table(rows); !strings.Contains(cells[0][4], "×0.8") || !strings.Contains(cells[0][5], "median of 5 runs") {
		t.Errorf("table row %q: want the interval and the runs", cells[0])
	}
}

// "Holds" cannot reward noise: runs spread so wide that the interval
// holds the paper's ×0.5 and ×1.5 of it too (×0.75) leave the degree
// undecided, and say how many runs would decide it; the same median
// ratio from tight runs holds.
func TestAWideIntervalLeavesTheDegreeUndecided(t *testing.T) {
	var recs []results.Record
	recs = append(recs, runs("wide", "rest+proto", 300, 500, 520, 540, 800)...)
	recs = append(recs, runs("wide", "rest", 1000, 1001, 999, 1002, 998)...)
	recs = append(recs, runs("tight", "rest+proto", 515, 518, 520, 522, 525)...)
	recs = append(recs, runs("tight", "rest", 1000, 1001, 999, 1002, 998)...)
	sel := func(part, stack string) map[string]string { return map[string]string{"part": part, "stack": stack} }
	f := func(part string) reference.Finding {
		return finding(part, "p50", "less than 1", sel(part, "rest+proto"), sel(part, "rest"))
	}
	s := &reference.Study{Figures: []reference.Figure{{ID: "a", Value: 1}, {ID: "b", Value: 2}}}
	s.Findings = []reference.Finding{f("wide"), f("tight")}
	rows := Check(s, Measured{Records: recs})
	wide, tight := rows[0], rows[1]
	if wide.Low > 0.5 || wide.High < 0.75 {
		t.Fatalf("the wide pair's interval [%.3f, %.3f] does not hold both ×0.5 and ×0.75: the test proves nothing", wide.Low, wide.High)
	}
	if wide.Verdict != DegreeUndecided || !strings.Contains(wide.Degree, "runs a side would decide it (5 here)") {
		t.Errorf("wide: %s (%s); want degree undecided with the runs that would decide it", wide.Verdict, wide.Degree)
	}
	if tight.Verdict != Holds {
		t.Errorf("tight ×%.3f [%.3f, %.3f] against ×0.5: %s (%s); want holds", tight.Ratio, tight.Low, tight.High, tight.Verdict, tight.Degree)
	}
}

// A superlative holds only when the stack comes first of all: ahead of
// the one rival the old check compared it with is not enough.
func TestASuperlativeRanksEveryContender(t *testing.T) {
	var recs []results.Record
	recs = append(recs, runs("l", "amqp", 2000, 2010, 1990, 2005, 1995)...)
	recs = append(recs, runs("l", "rest", 1000, 1010, 990, 1005, 995)...)
	recs = append(recs, runs("l", "grpc", 3000, 3010, 2990, 3005, 2995)...)
	recs = append(recs, runs("l", "kafka", 1980, 2020, 1900, 2100, 1950)...)
	rank := func(named, first string) reference.Finding {
		f := finding(named+"-"+first, "p50", "greater than 1", map[string]string{"part": "l", "stack": named}, map[string]string{"part": "l", "stack": "rest"})
		f.Rank = &reference.Rank{Among: []string{"amqp", "rest", "grpc", "kafka"}, First: first, Paper: "amqp, grpc, rest, kafka"}
		return directionOnly(f)
	}
	rows := Check(study(rank("amqp", "highest"), rank("grpc", "highest"), rank("rest", "lowest"), rank("kafka", "highest")), Measured{Records: recs})
	for i, w := range []Verdict{DoesNotHold, Holds, Holds, DoesNotHold} {
		if r := rows[i]; r.Verdict != w {
			t.Errorf("%s: %s ×%.3f (%s; %s; ranking %s); want %s", r.Finding.ID, r.Verdict, r.Ratio, r.Test, r.Why, r.Ranking, w)
		}
	}
	// amqp is second of four when the highest is first: grpc is ahead.
	if r := rows[0]; r.Den.Stack != "grpc" || !strings.HasPrefix(r.Ranking, "grpc 3, amqp 2, kafka 1.98, rest 1") {
		t.Errorf("amqp: against %q, ranking %q", r.Den.Stack, r.Ranking)
	}
	if r := rows[2]; r.Den.Stack != "kafka" || !strings.Contains(r.Paper, "ranking: amqp, grpc, rest, kafka") {
		t.Errorf("rest, fastest: against %q (want the runner-up, kafka), paper %q", r.Den.Stack, r.Paper)
	}
	// A contender that could not be measured (its calls failed) may be
	// the one ahead: first of the rest is not first of all.
	failed := rec("l", "graphql", 5, "", results.OutcomeErrors, 10, 1)
	failed.Requests, failed.Errors = 10, 10
	withFailed := func(f reference.Finding) reference.Finding {
		f.Rank.Among = append(slices.Clone(f.Rank.Among), "graphql")
		return f
	}
	r := Check(study(withFailed(rank("rest", "lowest"))), Measured{Records: append(recs, failed)})[0]
	if r.Verdict != Inconclusive || !strings.Contains(r.Why, "graphql could not be measured") || !strings.Contains(r.Ranking, "not measured: graphql") {
		t.Errorf("rest first, graphql's calls all failed: %s (%s; %s)", r.Verdict, r.Why, r.Ranking)
	}
}

// A parity claim holds when the interval sits inside the equivalence band.
func TestParityNeedsTheIntervalInsideTheBand(t *testing.T) {
	var recs []results.Record
	recs = append(recs, runs("same", "rest+proto", 1000, 1010, 990, 1005, 995)...)
	recs = append(recs, runs("same", "rest", 1002, 1012, 992, 1003, 997)...)
	recs = append(recs, runs("apart", "rest+proto", 2000, 2010, 1990, 2005, 1995)...)
	recs = append(recs, runs("apart", "rest", 1000, 1010, 990, 1005, 995)...)
	recs = append(recs, runs("wide", "rest+proto", 700, 1400, 1000, 900, 1200)...)
	recs = append(recs, runs("wide", "rest", 1000, 1010, 990, 1005, 995)...)
	var fs []reference.Finding
	for _, part := range []string{"same", "apart", "wide"} {
		f := finding(part, "p50", reference.About, map[string]string{"part": part, "stack": "rest+proto"}, map[string]string{"part": part, "stack": "rest"})
		fs = append(fs, directionOnly(f))
	}
	recs = append(recs, runs("few", "rest+proto", 1000, 1001)...)
	recs = append(recs, runs("few", "rest", 1000, 1001)...)
	f := finding("few", "p50", reference.About, map[string]string{"part": "few", "stack": "rest+proto"}, map[string]string{"part": "few", "stack": "rest"})
	fs = append(fs, directionOnly(f))
	rows := Check(study(fs...), Measured{Records: recs})
	for i, w := range []Verdict{Holds, DoesNotHold, Inconclusive, Inconclusive} {
		if r := rows[i]; r.Verdict != w || !strings.Contains(r.Test, "equivalence band") {
			t.Errorf("%s: %s ×%.3f [%.3f, %.3f] (%s); want %s", r.Finding.ID, r.Verdict, r.Ratio, r.Low, r.High, r.Test, w)
		}
	}
}

// An interaction compares two ratios: TLS narrowing REST's lead holds
// when REST-over-gRPC with TLS is significantly above the same without.
func TestAnInteractionComparesTwoRatios(t *testing.T) {
	var recs []results.Record
	tls := func(recs []results.Record) []results.Record {
		for i := range recs {
			recs[i].Options, recs[i].Case = "tls", recs[i].Case+" tls"
		}
		return recs
	}
	recs = append(recs, runs("l", "rest", 570, 571, 569, 572, 568)...)
	recs = append(recs, runs("l", "grpc", 680, 681, 679, 682, 678)...)
	recs = append(recs, tls(runs("l", "rest", 760, 761, 759, 762, 758))...)
	recs = append(recs, tls(runs("l", "grpc", 820, 821, 819, 822, 818))...)
	sel := func(stack, tls string) map[string]string {
		return map[string]string{"part": "l", "stack": stack, "tls": tls}
	}
	f := finding("offsets", "p50", "greater than 1", sel("rest", "true"), sel("grpc", "true"))
	f.Here.Num2, f.Here.Den2 = sel("rest", "false"), sel("grpc", "false")
	f.Ratio, f.Stated = [2]string{}, &reference.Stated{Low: 1.106, High: 1.106, Quote: "q", Where: "w"}
	flat := f
	flat.HoldsWhen = "less than 1"
	r := Check(study(f, flat), Measured{Records: recs})
	if math.Abs(r[0].Ratio-1.106) > 0.001 || r[0].Verdict != Holds || r[0].Low > 1.106 || r[0].High < 1.106 || !strings.Contains(r[0].Test, "interaction") {
		t.Errorf("offsets: %s ×%.4f [%.4f, %.4f] (%s)", r[0].Verdict, r[0].Ratio, r[0].Low, r[0].High, r[0].Test)
	}
	if r[1].Verdict != DoesNotHold {
		t.Errorf("the opposite claim: %s", r[1].Verdict)
	}
}

// A run whose calls failed gives no latency; goodput counts its good
// replies, and all replies late is no goodput at all.
func TestFailedCallsGiveNoLatencyAndLateRepliesNoGoodput(t *testing.T) {
	late := rec("t", "graphql", 5, "", results.OutcomeErrors, 1500000, 1)
	late.Requests, late.Errors, late.RPS, late.GoodRPS = 70, 70, 7.1, 0
	late.ErrorsByClass = map[string]int64{"over_sla": 70}
	if _, err := (Measured{Records: []results.Record{late}}).value("p50", map[string]string{"part": "t"}); err == nil || !strings.Contains(err.Error(), "70 of 70 calls failed") {
		t.Errorf("p50 of a run whose every call failed: %v", err)
	}
	v, err := (Measured{Records: []results.Record{late}}).value("good_rps", map[string]string{"part": "t"})
	if err != nil || v.V != 0 {
		t.Errorf("good_rps %v, %v; want 0", v.V, err)
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
	known := []string{"measure", "part", "stack", "topology", "op", "model", "count", "load", "tls", "cache", "h2", "mtls", "codec", "compress", "generator", "runtime", "proxy"}
	for _, s := range studies {
		for _, f := range s.Findings {
			if f.Here.Outcome() {
				_, known := evolution.LookupChange(f.Here.Num["change"])
				if _, err := evolution.ParsePath(f.Here.Num["path"]); err != nil || !known {
					t.Errorf("%s/%s: change %q over %q: %v", s.Study, f.ID, f.Here.Num["change"], f.Here.Num["path"], err)
				}
				continue
			}
			if f.Here.Needs != "" {
				continue // no measure reads it yet: its verdict says what would
			}
			if _, ok := Measures[f.Here.Measure]; !ok {
				t.Errorf("%s/%s: unknown measure %q", s.Study, f.ID, f.Here.Measure)
			}
			if a := f.Absolute; a != nil && Measures[f.Here.Measure] != a.Unit {
				t.Errorf("%s/%s: %s is in %s, the claim in %s", s.Study, f.ID, f.Here.Measure, Measures[f.Here.Measure], a.Unit)
			}
			sels := []map[string]string{f.Here.Num, f.Here.Den, f.Here.Num2, f.Here.Den2}
			if f.Cases != nil {
				sels = append(sels, f.Cases.Of...)
			}
			for _, sel := range sels {
				for k, v := range sel {
					if !slices.Contains(known, k) || k == "measure" && Measures[v] == "" {
						t.Errorf("%s/%s: selector %s=%s", s.Study, f.ID, k, v)
					}
				}
			}
		}
	}
}

// A service's processing time is its own: the entry node's total less
// its wait on the service it calls.
func TestServerTimeIsTheEntryNodesOwnTime(t *testing.T) {
	r := rec("p", "rest", 5, "", results.OutcomeOK, 1000, 1)
	r.Nodes = []results.Node{
		{Index: 1, Stats: &nodeapi.Stats{Phases: map[string]stats.Summary{"total": {MeanUs: 100}}}},
		{Index: 0, Stats: &nodeapi.Stats{Phases: map[string]stats.Summary{"total": {MeanUs: 2500}, "downstream": {MeanUs: 1800}, "decode": {MeanUs: 300}}}},
	}
	if v, err := recordValue(&r, "server_ms"); err != nil || v != 0.7 {
		t.Errorf("server_ms %v, %v; want 0.7", v, err)
	}
	if v, err := recordValue(&r, "decode_ms"); err != nil || v != 0.3 {
		t.Errorf("decode_ms %v, %v; want 0.3", v, err)
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
	s.Figures = []reference.Figure{{ID: "a", Value: 3.3}, {ID: "b", Value: 1}} // ×3 is within 10 %
	if r := Check(s, Measured{Binaries: &b})[0]; r.Verdict != Holds || r.Ratio != 3 {
		t.Errorf("%s ×%v (%s); want holds ×3", r.Verdict, r.Ratio, r.Why)
	}
	if r := Check(s, Measured{})[0]; r.Verdict != NotMeasured || !strings.Contains(r.Why, "scripts/binsize.sh") {
		t.Errorf("without sizes: %s (%s)", r.Verdict, r.Why)
	}
}

// An outcome finding holds when every trial of its stack, change and path
// came back as claimed, does not when any came back otherwise (saying
// what and how often), and is not measured without trials.
func TestOutcomeFindingsAreJudgedOnEveryTrial(t *testing.T) {
	f := reference.Finding{ID: "x", Claim: "c", HoldsWhen: "kept", Stated: &reference.Stated{Quote: "q", Where: "w"},
		Here: reference.Here{Measure: reference.MeasureEvolution, Num: map[string]string{"stack": "rest+proto", "change": "field-added", "path": "v2,v1,v2"}}}
	study := &reference.Study{Findings: []reference.Finding{f}}
	trial := func(o evolution.Outcome) evolution.Trial {
		return evolution.Trial{Change: "field-added", Path: "v2,v1,v2", Outcome: o, Others: evolution.Kept, Detail: "why"}
	}
	rec := results.Record{Stack: "rest+proto", Evolution: []evolution.Trial{trial(evolution.Kept), trial(evolution.Kept)}}
	if row := Check(study, Measured{Records: []results.Record{rec}})[0]; row.Verdict != Holds || row.Outcome != "kept" || row.Why != "trials: kept 2" {
		t.Errorf("all kept: %s %q %q", row.Verdict, row.Outcome, row.Why)
	}
	rec.Evolution = append(rec.Evolution, trial(evolution.Dropped))
	if row := Check(study, Measured{Records: []results.Record{rec}})[0]; row.Verdict != DoesNotHold || row.Why != "trials: kept 2; dropped 1 (why)" {
		t.Errorf("one dropped: %s %q", row.Verdict, row.Why)
	}
	rec.Stack = "rest"
	if row := Check(study, Measured{Records: []results.Record{rec}})[0]; row.Verdict != NotMeasured {
		t.Errorf("no trial of the stack: %s", row.Verdict)
	}
}

// A superlative's degree is judged on the paper's pair, not ours: grpc
// first here with kafka second, where the paper's runner-up was amqp
// (its ratio ×1.5), is judged grpc over amqp. And a stack the claim names
// last must be last of all: "grpc most, rest fewest" does not hold when
// kafka is significantly below rest.
func TestASuperlativeTestsThePapersPairAndBothEnds(t *testing.T) {
	var recs []results.Record
	recs = append(recs, runs("l", "grpc", 3000, 3010, 2990, 3005, 2995)...)
	recs = append(recs, runs("l", "kafka", 2900, 2910, 2890, 2905, 2895)...)
	recs = append(recs, runs("l", "amqp", 2000, 2010, 1990, 2005, 1995)...)
	recs = append(recs, runs("l", "rest", 1000, 1010, 990, 1005, 995)...)
	base := func(id, last string) reference.Finding {
		f := finding(id, "p50", "greater than 1", map[string]string{"part": "l", "stack": "grpc"}, nil)
		f.Rank = &reference.Rank{Among: []string{"grpc", "kafka", "amqp", "rest"}, First: "highest", Paper: "grpc, amqp, …", RunnerUp: "amqp", Last: last}
		return f
	}
	s := study(base("pair", ""), base("ends", "rest"), base("wrong-end", "amqp"))
	s.Figures = []reference.Figure{{ID: "a", Value: 1.5}, {ID: "b", Value: 1}}
	rows := Check(s, Measured{Records: recs})
	pair, ends, wrong := rows[0], rows[1], rows[2]
	if pair.Den.Stack != "amqp" || pair.Verdict != Holds || !strings.Contains(pair.Why, "significantly ahead of kafka") {
		t.Errorf("pair: %s over %s, %s (%s; %s); want grpc over the paper's runner-up amqp, holds, first ahead of kafka", pair.Num.Stack, pair.Den.Stack, pair.Verdict, pair.Degree, pair.Why)
	}
	if ends.Verdict != Holds || !strings.Contains(ends.Why, "rest last of all, significantly") {
		t.Errorf("ends: %s (%s)", ends.Verdict, ends.Why)
	}
	if wrong.Verdict != DoesNotHold || !strings.Contains(wrong.Why, "the claim names amqp last, but rest last here") {
		t.Errorf("wrong end: %s (%s)", wrong.Verdict, wrong.Why)
	}
}
