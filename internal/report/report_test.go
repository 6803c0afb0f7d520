package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func fixture(t *testing.T) []results.Record {
	t.Helper()
	recs, skipped, err := results.Read("testdata/results.jsonl")
	if err != nil || skipped != 0 {
		t.Fatalf("reading the fixture: %v (skipped %d)", err, skipped)
	}
	return recs
}

// writtenFixture is the fixture's report, written to a temporary
// directory.
func writtenFixture(t *testing.T) (*Report, string) {
	t.Helper()
	r, err := Build("fixture", nil, fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	return r, dir
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/report -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the report renders now; if the change is intended, run go test ./internal/report -update and review the diff", path)
	}
}

func TestReportMatchesGoldenFiles(t *testing.T) {
	r, err := Build("fixture", []string{"testdata/results.jsonl"}, fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	var html, md bytes.Buffer
	if err := r.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.html.golden", html.Bytes())
	golden(t, "report.md.golden", md.Bytes())
}

// The fixture has 4 stacks, one payload, a closed load and a ramp, two
// repetitions each, calibrated: every kind of chart has something to draw.
func TestReportDrawsEveryKindOfChart(t *testing.T) {
	r, err := Build("fixture", nil, fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"latency": 2, "by-payload": 4, "seconds": 2, "ramps": 2, "bytes": 1, "resources": 4, "boot": 1}
	got := map[string]int{}
	for _, s := range r.Sections {
		got[s.ID] = len(s.Figures)
		for _, f := range s.Figures {
			if !bytes.Contains(f.InlineSVG, []byte("<path")) || len(f.Table.Rows) == 0 {
				t.Errorf("%s: a chart without drawing or a table without rows", f.ID)
			}
			if !bytes.Contains(f.InlineSVG, []byte(`<g class="hover">`+"\n<")) || !bytes.Contains(f.InlineSVG, []byte("</title>")) {
				t.Errorf("%s: no figure to hover over", f.ID)
			}
			if f.Finding == "" {
				t.Errorf("%s: a chart that says nothing of what it shows", f.ID)
			}
		}
	}
	for id, n := range want {
		if got[id] != n {
			t.Errorf("section %s: %d figures, want %d", id, got[id], n)
		}
	}
	if len(r.Missing) != 0 {
		t.Errorf("missing: %v", r.Missing)
	}
	if len(r.Summary.Rows) != 8 {
		t.Errorf("summary: %d rows, want 8 cases", len(r.Summary.Rows))
	}
}

// Figures come only from runs that completed: a failed run is in the
// summary with its outcome, and in no chart.
func TestFailedRunsAreSummarizedNotDrawn(t *testing.T) {
	recs := fixture(t)
	var kept []results.Record
	for _, r := range recs {
		if r.Stack == "nats" {
			r.Outcome, r.Reason = results.OutcomeFailed, "the broker could not start"
			r.Figures = results.Figures{}
			r.Histogram, r.Series, r.Steps, r.Nodes, r.Brokers = "", nil, nil, nil, nil
		}
		kept = append(kept, r)
	}
	r, err := Build("x", nil, kept)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	r.Markdown(&md)
	if !strings.Contains(md.String(), "| nats | direct | echo | payment×2 | closed:1 |  | 0 |") || !strings.Contains(md.String(), "failed") {
		t.Errorf("the summary lost the failed runs:\n%s", md.String())
	}
	for _, s := range r.Sections {
		for _, f := range s.Figures {
			for _, row := range f.Table.Rows {
				if row[0] == "nats" {
					t.Errorf("%s draws nats, whose runs failed", f.ID)
				}
			}
		}
	}
}

func TestUncalibratedRunsSayWhyThereIsNoFloor(t *testing.T) {
	recs := fixture(t)
	for i := range recs {
		recs[i].Calibration = nil
	}
	r, err := Build("x", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Missing) == 0 || !strings.Contains(r.Missing[0], "--no-calibrate") {
		t.Errorf("missing = %v, want a note on the floor", r.Missing)
	}
	for _, s := range r.Sections {
		for _, f := range s.Figures {
			if strings.Contains(f.Title, "floor") {
				t.Errorf("%s drawn without a floor", f.ID)
			}
		}
	}
}

func TestNoRecordsIsAnError(t *testing.T) {
	if _, err := Build("x", nil, nil); err == nil {
		t.Fatal("no error for no records")
	}
}

func TestWriteLeavesHTMLMarkdownAndSVGs(t *testing.T) {
	r, dir := writtenFixture(t)
	n := 0
	for _, s := range r.Sections {
		for _, f := range s.Figures {
			n++
			b, err := os.ReadFile(filepath.Join(dir, ChartsDir, f.ID+".svg"))
			if err != nil || !bytes.HasPrefix(b, []byte("<?xml")) {
				t.Errorf("%s.svg: %v", f.ID, err)
			}
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, ChartsDir))
	if len(entries) != n {
		t.Errorf("%d files in charts/, want %d", len(entries), n)
	}
	for _, name := range []string{HTMLFile, MarkdownFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}

// A capacity search's report draws each stack's curve with the SLA and
// its knee, compares the capacities, and puts capacity in the summary.
// The records are advise's: a capacity search of rest, grpc and nats.
func TestCapacitySearchesAreDrawnAsCurvesWithTheirKnees(t *testing.T) {
	recs, _, err := results.Read("../advise/testdata/capacity.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build("capacity", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	var sec *Section
	for _, s := range r.Sections {
		if s.ID == "capacity" {
			sec = s
		}
		if s.ID == "ramps" {
			t.Errorf("capacity probes drawn as a ramp")
		}
	}
	if sec == nil || len(sec.Figures) != 2 {
		t.Fatalf("capacity section %+v, want a curve and a bar chart", sec)
	}
	curve := string(sec.Figures[0].InlineSVG)
	for _, want := range []string{"SLA p99 ≤ 20ms", ">rest</text>", ">grpc</text>", "<title>grpc — p50 ", "<title>rest — p99 ", "achieved rate"} {
		if !strings.Contains(curve, want) {
			t.Errorf("curve lacks %q", want)
		}
	}
	cells := map[string]string{}
	for _, row := range sec.Figures[0].Table.Rows {
		cells[row[0]] = row[1]
	}
	for _, rec := range recs {
		if got := cells[rec.Stack]; got != fmt.Sprintf("%.0f", rec.CapacityRPS) {
			t.Errorf("%s: capacity cell %q, record %v", rec.Stack, got, rec.CapacityRPS)
		}
	}
	if !slices.Contains(r.Summary.Header, "capacity req/s") {
		t.Errorf("summary header %q has no capacity", r.Summary.Header)
	}
}

// Cases measured with a connection per call are set beside their pooled
// twins, with what the connection adds and its share.
func TestPerRequestCasesAreSetBesideTheirPooledTwins(t *testing.T) {
	var recs []results.Record
	for _, r := range fixture(t) {
		if r.Stack != "rest" && r.Stack != "grpc" {
			continue
		}
		recs = append(recs, r)
		per := r
		per.Options = strings.TrimSpace(r.Options + " per-request")
		per.Case = r.Case + " per-request"
		per.P50Us = r.P50Us * 4
		recs = append(recs, per)
	}
	r, err := Build("connections", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	sec := sectionOf(r, "connections")
	if sec == nil || len(sec.Figures) == 0 {
		t.Fatal("no connections section")
	}
	for _, f := range sec.Figures {
		for _, row := range f.Table.Rows {
			if row[4] != "75 %" {
				t.Errorf("%s: %v, want a connection per call adding 75 %% of a p50 four times the pooled one", f.Title, row)
			}
		}
	}
}

// Cases run on emulated networks get a Networks section: what each
// network gave as measured before its runs, and each scenario's p50 on
// every network it was measured on.
func TestNetworksAreShownAsMeasured(t *testing.T) {
	var recs []results.Record
	for _, r := range fixture(t) {
		if r.Stack != "rest" && r.Stack != "grpc" {
			continue
		}
		recs = append(recs, r)
		for i, rtt := range []float64{310, 290, 350} {
			lan := r
			lan.Options = strings.TrimSpace(r.Options + " net:lan")
			lan.Case = r.Case + " net:lan"
			lan.P50Us = r.P50Us + 300
			lan.Repetition = i
			lan.Network = &network.Measured{Profile: "lan", Mechanism: network.InProcess, RTTUs: rtt, DatagramRTTUs: rtt - 10, Mbit: 800 + float64(i)}
			recs = append(recs, lan)
		}
	}
	r, err := Build("networks", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(r.Sections, func(s *Section) bool { return s.ID == "networks" })
	if i < 0 || len(r.Sections[i].Figures) < 2 {
		t.Fatal("no networks section with its measurements and a scenario across networks")
	}
	sec := r.Sections[i]
	measured := sec.Figures[0].Table
	if len(measured.Rows) != 1 || measured.Rows[0][0] != "lan" || measured.Rows[0][3] != "0.310 (0.290–0.350)" || measured.Rows[0][4] != "0.300 (0.280–0.340)" || measured.Rows[0][5] != "801.0 (800.0–802.0)" {
		t.Errorf("measured networks: %v, want lan's round trip median (min–max) in ms, over datagrams, and its throughput", measured.Rows)
	}
	across := sec.Figures[1].Table
	if !slices.Equal(across.Header, []string{"stack", "p50 ms lan", "p50 ms loopback"}) || len(across.Rows) == 0 {
		t.Errorf("a scenario across networks: %v %v", across.Header, across.Rows)
	}
}

// Runs with schema trials get a Schema evolution section: per path a
// table of each stack's outcome per change (both item counts when they
// differ; the changes the trials tried, in their order), the refusals
// with their words, and each mixed case beside its
// twin of the sender's version alone; a table alone draws no chart and
// writes no SVG.
func TestSchemaTrialsAreTabledAndCosted(t *testing.T) {
	var recs []results.Record
	for _, r := range fixture(t) {
		if r.Stack != "rest" || !r.Completed() {
			continue
		}
		for _, schema := range []string{"v2,v1,v2", "v2"} {
			x := r
			x.Options, x.Case, x.Schema = strings.TrimSpace(r.Options+" schema:"+schema), r.Case+" schema:"+schema, schema
			x.Evolution = []evolution.Trial{
				{Change: "field-added", Path: "v2,v1,v2", Count: 1, Outcome: evolution.Dropped, Others: evolution.Kept},
				{Change: "field-added", Path: "v2,v1,v2", Count: 3, Outcome: evolution.Kept, Others: evolution.Kept},
				{Change: "scalar-widened", Path: "v2,v1,v2", Count: 3, Outcome: evolution.Refused, Others: evolution.Refused, Detail: "age overflows"},
			}
			recs = append(recs, x)
		}
		break
	}
	r, err := Build("evolution", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	sec := sectionOf(r, "evolution")
	if sec == nil || len(sec.Figures) != 3 {
		t.Fatalf("evolution section %+v: want the path's table, the refusals and the cost", sec)
	}
	outcomes, refusals, cost := sec.Figures[0], sec.Figures[1], sec.Figures[2]
	if outcomes.SVG != nil || outcomes.Table.Rows[0][1] != "dropped ×1; kept ×3" || outcomes.Table.Rows[0][2] != "refused" || !slices.Equal(outcomes.Table.Header, []string{"stack", "field-added", "scalar-widened"}) {
		t.Errorf("outcomes %q (chart %v)", outcomes.Table.Rows, outcomes.SVG != nil)
	}
	if len(refusals.Table.Rows) != 1 || refusals.Table.Rows[0][5] != "age overflows" {
		t.Errorf("refusals %q", refusals.Table.Rows)
	}
	if cost.SVG == nil || len(cost.Table.Rows) != 1 || !strings.HasPrefix(cost.Table.Rows[0][3], "×1.00") {
		t.Errorf("cost %q", cost.Table.Rows)
	}
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ChartsDir, outcomes.ID+".svg")); !os.IsNotExist(err) {
		t.Errorf("a table alone wrote an SVG: %v", err)
	}
}

// sectionOf is r's section id, or nil.
func sectionOf(r *Report, id string) *Section {
	for _, s := range r.Sections {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// Cases run through proxies are set beside their twins without: each
// proxied hop's added latency is the difference of p50s over the hops
// the proxies stood on, and a broker stack's proxies, in front of its
// broker, stand on every call (one a node).
func TestTheMeshCostIsTheDifferenceOverTheProxiedHops(t *testing.T) {
	proxies := map[string][]results.Proxy{
		"rest": {{Role: "hop 0→1 outbound"}, {Role: "hop 0→1 inbound"}, {Role: "hop 1→2 outbound"}, {Role: "hop 1→2 inbound"}},
		"nats": {{Role: "hop " + results.BrokerHop}},
	}
	p50 := map[string]int64{"rest": 1400, "nats": 1600} // 0.2 ms a hop over 2 and 3 hops
	word := map[string]string{"rest": "proxy:haproxy/l4/x2", "nats": "proxy:haproxy/l4/x1"}
	var recs []results.Record
	for _, r := range fixture(t) {
		if (r.Stack != "rest" && r.Stack != "nats") || r.Load != "closed:1" {
			continue
		}
		r.Topology, r.Case, r.P50Us = "chain:3", strings.Replace(r.Case, "direct", "chain:3", 1), 1000
		with := r
		with.Options, with.Case, with.P50Us = word[r.Stack], r.Case+" "+word[r.Stack], p50[r.Stack]
		for _, p := range proxies[r.Stack] {
			p.Usage = results.Usage{CPUSeconds: 0.1, CPUUsPerReq: 50, RSSBytes: 8 << 20}
			with.Proxies = append(with.Proxies, p)
		}
		recs = append(recs, r, with)
	}
	rep, err := Build("mesh", nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	sec := sectionOf(rep, "mesh")
	if sec == nil || len(sec.Figures) != 1 {
		t.Fatalf("want a mesh section of one scenario: %+v", sec)
	}
	want := map[string][]string{"rest": {"2", "0.200"}, "nats": {"3", "0.200"}}
	rows := sec.Figures[0].Table.Rows
	for _, row := range rows {
		if w := want[row[0]]; w == nil || row[2] != w[0] || row[6] != w[1] || row[7] != "0.050" {
			t.Errorf("%v: want %s hops, %s ms added a hop, 0.050 vCPU per 1 000 req/s", row, w[0], w[1])
		}
	}
	if len(rows) != 2 {
		t.Errorf("%d rows, want rest's and nats's", len(rows))
	}
}
