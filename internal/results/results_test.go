package results

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/stats"
)

func record(cas string, rep int, rps float64, p50 time.Duration, outcome string) *Record {
	h := stats.NewHistogram()
	stats.Record(h, p50)
	enc, _ := stats.Encode(h)
	s := stats.Summarize(h)
	f := Figures{Requests: 100, RPS: rps, GoodRPS: rps, MeanUs: s.MeanUs, P50Us: s.P50Us, P90Us: s.P90Us, P99Us: s.P99Us, P999Us: s.P999Us, MaxUs: s.MaxUs,
		Wire: &WirePerRequest{Sent: 10, Received: 20}}
	if rps > 0 {
		f.ElapsedS = 100 / rps
	}
	return &Record{Experiment: "t", Case: cas, Repetition: rep, Stack: "rest", Topology: "direct", Op: "echo", Model: "text", Count: 10,
		Load: "closed:1", Outcome: outcome, Figures: f, Histogram: enc}
}

func TestRecordsReadBackRebuildTheSameSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	recs := []*Record{
		record("a", 0, 100, time.Millisecond, OutcomeOK),
		record("b", 0, 50, 2*time.Millisecond, OutcomeOK),
		record("a", 1, 300, 3*time.Millisecond, OutcomeOK),
		record("a", 2, 200, 2*time.Millisecond, OutcomeOK),
		record("b", 1, 0, time.Millisecond, OutcomeInterrupted),
	}
	var written []Record
	for _, r := range recs {
		if err := Append(path, r); err != nil {
			t.Fatal(err)
		}
		written = append(written, *r)
	}
	back, skipped, err := Read(path)
	if err != nil || skipped != 0 {
		t.Fatalf("read: %v (%d skipped)", err, skipped)
	}
	var want, got bytes.Buffer
	Markdown(&want, Summarize(written))
	Markdown(&got, Summarize(back))
	if want.String() != got.String() {
		t.Fatalf("summary from the file:\n%s\nwant:\n%s", got.String(), want.String())
	}
	rows := Summarize(back)
	if len(rows) != 2 || rows[0].Reps != 3 || rows[0].RPS.Median != 200 || rows[0].RPS.Min != 100 {
		t.Fatalf("rows %+v", rows)
	}
	if rows[1].Reps != 1 || strings.Join(rows[1].Outcomes, ",") != "ok,interrupted" {
		t.Errorf("the interrupted repetition: %+v", rows[1])
	}
	h, err := stats.Decode(back[0].Histogram)
	if err != nil || h.TotalCount() != 1 {
		t.Errorf("histogram read back: %v", err)
	}
	if w := back[0].Wire; w == nil || w.Sent != 10 || w.Received != 20 {
		t.Errorf("wire per request %+v", w)
	}
	if !strings.Contains(got.String(), "200 (100–300)") {
		t.Errorf("repetitions not shown as median (min–max):\n%s", got.String())
	}
	var csv bytes.Buffer
	if err := CSV(&csv, rows); err != nil || strings.Count(csv.String(), "\n") != 3 {
		t.Errorf("csv: %v\n%s", err, csv.String())
	}
}

func TestATornLastLineIsSkippedAndOtherDamageRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.jsonl")
	if err := Append(path, record("a", 0, 100, time.Millisecond, OutcomeOK)); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"version":1,"case":"b","sta`)
	f.Close()
	recs, skipped, err := Read(path)
	if err != nil || len(recs) != 1 || skipped != 1 {
		t.Fatalf("torn last line: %d records, %d skipped, %v", len(recs), skipped, err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{nope\n{\"version\":1}\n"), 0o644)
	if _, _, err := Read(bad); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("damaged first line: %v", err)
	}
	future := filepath.Join(dir, "future.jsonl")
	os.WriteFile(future, []byte("{\"version\":99}\n"), 0o644)
	if _, _, err := Read(future); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("unknown version: %v", err)
	}
}

func TestCapacityIsSummarizedWithItsBound(t *testing.T) {
	search := func(rps float64, lower bool, outcome string) Record {
		r := *record("capacity", 0, rps, time.Millisecond, outcome)
		r.Load = "capacity:p99<=10ms"
		r.Capacity = &SearchResult{RPS: rps, LowerBound: lower, Step: 0}
		r.CapacityRPS = rps
		return r
	}
	cases := []struct {
		recs []Record
		want string
	}{
		{[]Record{search(1000, false, OutcomeOK), search(1200, false, OutcomeOK), search(1100, false, OutcomeErrors)}, "1100 (1000–1200)"},
		{[]Record{search(1000, true, OutcomeOK)}, "≥ 1000"},
		{[]Record{search(0, false, OutcomeErrors)}, "none"},
		{[]Record{search(900, false, OutcomeFailed)}, "not measured"},
	}
	for _, c := range cases {
		rows := Summarize(c.recs)
		if got := rows[0].CapacityCell(); got != c.want {
			t.Errorf("capacity cell %q, want %q", got, c.want)
		}
		header, cells := Table(rows)
		if i := slices.Index(header, "capacity req/s"); i < 0 || cells[0][i] != c.want {
			t.Errorf("table %q %q: no capacity column saying %q", header, cells, c.want)
		}
	}
	// A row's errors are those at the capacity, like its rate and latency.
	r := search(1000, false, OutcomeOK)
	r.Requests, r.Errors, r.Steps = 5000, 900, []Step{{Value: 1000, Requests: 1000, Errors: 3}}
	if row := Summarize([]Record{r})[0]; row.Requests != 1000 || row.Errors != 3 {
		t.Errorf("capacity row: %d errors in %d requests, want the probe at the capacity's 3 in 1000", row.Errors, row.Requests)
	}
	plain := Summarize([]Record{*record("closed", 0, 1000, time.Millisecond, OutcomeOK)})
	if header, _ := Table(plain); slices.Contains(header, "capacity req/s") {
		t.Errorf("a table with no capacity search has a capacity column: %q", header)
	}
}

// A file of JSON lines that are not hopbench records is refused as such,
// not as records of an unknown format version.
func TestAForeignFileIsNotReadAsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	if err := os.WriteFile(path, []byte(`{"foo":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := Read(path)
	if err == nil || !strings.Contains(err.Error(), "not a hopbench record") || strings.Contains(err.Error(), "version 0") {
		t.Errorf("read: %v, want it called not a hopbench record", err)
	}
}

// A run's proxied hops: its proxies over their sidecars a hop, or every
// call of a broker stack's chain when they stand in front of its broker.
func TestProxiedHopsAreWhatTheProxiesStoodOn(t *testing.T) {
	four := []Proxy{{Role: "hop 0→1 outbound"}, {Role: "hop 0→1 inbound"}, {Role: "hop 1→2 outbound"}, {Role: "hop 1→2 inbound"}}
	for _, c := range []struct {
		name string
		r    Record
		want int
	}{
		{"two sidecars a hop", Record{Topology: "chain:3", Options: "proxy:haproxy/l7/x2/mtls", Proxies: four}, 2},
		{"one proxy a hop", Record{Topology: "chain:5", Options: "proxy:nginx/l4/x1", Proxies: four}, 4},
		{"in front of the broker", Record{Topology: "chain:3", Options: "proxy:haproxy/l4/x1", Proxies: []Proxy{{Role: "hop " + BrokerHop}}}, 3},
		{"no proxy", Record{Topology: "chain:3"}, 0},
	} {
		if got := c.r.ProxiedHops(); got != c.want {
			t.Errorf("%s: %d hops, want %d", c.name, got, c.want)
		}
	}
}
