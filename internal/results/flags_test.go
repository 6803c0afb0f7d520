package results

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/stats"
)

func run(requests, errors, overSLA, notSent int64) Record {
	r := Record{Case: "c", Stack: "rest", Outcome: OutcomeErrors}
	r.Requests, r.Errors, r.NotSent = requests, errors+overSLA, notSent
	r.ErrorsByClass = map[string]int64{"refused": errors, ClassOverSLA: overSLA}
	if r.Errors == 0 && notSent == 0 {
		r.Outcome = OutcomeOK
	}
	return r
}

// A run is flagged partly failed past MaxFailedShare of failed or unsent
// calls, and only then; replies later than the SLA are not failures, and
// a run that did not complete carries its outcome, not the flag.
func TestPartlyFailedIsPastTheBoundOfFailedOrUnsentCalls(t *testing.T) {
	for _, c := range []struct {
		name string
		rec  Record
		want bool
	}{
		{"clean", run(10_000, 0, 0, 0), false},
		{"at the bound", run(10_000, 10, 0, 0), false},
		{"past the bound", run(10_000, 11, 0, 0), true},
		{"late replies only", run(10_000, 0, 9_000, 0), false},
		{"never sent", run(1_000_000, 0, 0, 1_900_000), true},
		{"interrupted", func() Record { r := run(10_000, 5_000, 0, 0); r.Outcome = OutcomeInterrupted; return r }(), false},
	} {
		c.rec.MarkFailures()
		if got := c.rec.Flags.Has(FlagPartlyFailed); got != c.want {
			t.Errorf("%s: flagged %v (%v), want %v", c.name, got, c.rec.Flags, c.want)
		}
		if c.rec.Completed() && c.rec.Stands() == c.want {
			t.Errorf("%s: stands %v with flags %v", c.name, c.rec.Stands(), c.rec.Flags)
		}
	}
}

// A capacity search is judged by its probe at the capacity: the probes
// above it fail by design.
func TestACapacitySearchIsJudgedAtItsCapacity(t *testing.T) {
	r := run(30_000, 20_000, 0, 0)
	r.Capacity = &SearchResult{RPS: 1000, Step: 0}
	r.Steps = []Step{{Requests: 2000, Errors: 1, ErrorsByClass: map[string]int64{"refused": 1}}, {Requests: 28_000, Errors: 19_999}}
	if r.MarkFailures(); len(r.Flags) != 0 {
		t.Errorf("a search whose capacity probe held is flagged: %v", r.Flags)
	}
	r.Steps[0].Unanswered = 100
	if r.MarkFailures(); !strings.Contains(r.Flags.String(), "partly failed (101 of 2100 calls failed or went unsent (refused 1, unanswered 100)") {
		t.Errorf("flags %q", r.Flags)
	}
}

// Records written before flags existed (format version 1) are flagged as
// they are read, by the same rule: a reader never takes an old record
// that partly failed for a clean one.
func TestAVersionOneRecordIsFlaggedAsItIsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	line := `{"version":1,"case":"c","stack":"rest","load":"rate:1000000","outcome":"errors","requests":1000,"errors":660,"errors_by_class":{"refused":660},"not_sent":1900}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, _, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Stands() || !recs[0].Flags.Has(FlagPartlyFailed) {
		t.Fatalf("read %+v", recs)
	}
	rows := Summarize(recs)
	if rows[0].Reps != 0 || rows[0].Errors != 660 || !strings.Contains(rows[0].Cells()[len(Header)-1], "errors; partly failed ×1 (left out)") {
		t.Errorf("summary row %+v: %q", rows[0], rows[0].Cells())
	}
}

// A capacity under a tenth of the same stack's closed-loop peak at the
// same payload is contradicted; one of a third is not, nor one of
// another payload.
func TestACapacityFarBelowTheClosedLoopPeakIsContradicted(t *testing.T) {
	mk := func(load string, count int, rps, capacity float64) Record {
		r := Record{Stack: "grpc", Topology: "direct", Op: "echo", Model: "text", Count: count, Load: load, Outcome: OutcomeOK}
		r.Requests, r.RPS = 1000, rps
		if capacity > 0 {
			r.Capacity = &SearchResult{RPS: capacity, Step: -1}
		}
		return r
	}
	recs := []Record{mk("closed:32", 100, 58253, 0), mk("capacity:p99<=10ms", 100, 0, 878), mk("capacity:p99<=1ms", 100, 0, 20000), mk("capacity:p99<=10ms", 5, 0, 878)}
	MarkContradictions(recs)
	for i, want := range []bool{false, true, false, false} {
		if got := recs[i].Flags.Has(FlagContradicted); got != want {
			t.Errorf("record %d (%s, count %d): contradicted %v, want %v: %v", i, recs[i].Load, recs[i].Count, got, want, recs[i].Flags)
		}
	}
	if recs[1].Stands() {
		t.Error("a contradicted capacity stands")
	}
}

// An open loop whose generator sent its requests late past the bound (a
// tenth of the p99, at least 2 ms) is marked generator late; its figures
// still stand. Within the bound, or in a closed loop, it is not.
func TestAGeneratorLatePastItsBoundIsMarked(t *testing.T) {
	rec := func(lateP99, p99 int64) *Record {
		r := &Record{Outcome: OutcomeOK}
		r.Requests, r.P99Us = 1000, p99
		if lateP99 >= 0 {
			r.Lateness = &stats.Summary{P99Us: lateP99}
		}
		r.MarkNoise()
		return r
	}
	if r := rec(30_000, 100_000); !r.Flags.Has(FlagGeneratorLate) || !r.Stands() || !strings.Contains(r.Flags.String(), "30ms late at p99") {
		t.Errorf("30 ms late at a p99 of 100 ms: flags %q, stands %v; want generator late, standing", r.Flags, r.Stands())
	}
	for _, c := range [][2]int64{{1_200, 600}, {8_000, 100_000}, {-1, 100}} {
		if r := rec(c[0], c[1]); len(r.Flags) != 0 {
			t.Errorf("lateness p99 %dµs at p99 %dµs: flags %q, want none", c[0], c[1], r.Flags)
		}
	}
}

// An open loop's generator lateness at p99 is a column of the summary
// table, beside its p99, only when some case recorded one; a closed
// loop's cell is empty.
func TestTheSummaryShowsTheGeneratorsLateness(t *testing.T) {
	open := run(1000, 0, 0, 0)
	open.Case, open.Load, open.P99Us = "open", "rate:2000", 400
	open.Lateness = &stats.Summary{P99Us: 1200}
	closed := run(1000, 0, 0, 0)
	closed.Case, closed.Load = "closed", "closed:1"
	header, cells := Table(Summarize([]Record{closed}))
	if slices.Contains(header, "lateness p99 ms") {
		t.Errorf("closed loops only: header %q, want no lateness column", header)
	}
	header, cells = Table(Summarize([]Record{open, closed}))
	at := slices.Index(header, "lateness p99 ms")
	if at != slices.Index(header, "p99 ms")+1 || cells[0][at] != "1.200" || cells[1][at] != "" {
		t.Errorf("header %q, cells %q: want lateness after p99, 1.200 ms for the open loop, empty for the closed", header, cells)
	}
}
