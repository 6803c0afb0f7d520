package compare

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/hopbench/hopbench/internal/results"
)

func read(t *testing.T, path string) []results.Record {
	t.Helper()
	recs, _, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func only(recs []results.Record, stack string) []results.Record {
	var out []results.Record
	for _, r := range recs {
		if r.Stack == stack {
			out = append(out, r)
		}
	}
	return out
}

// a.jsonl and b.jsonl are two runs of testdata/same.yaml, one after the
// other: six repetitions of each case, nothing changed between them.
func TestTheSameSpecRunTwiceShowsNoSignificantDifference(t *testing.T) {
	res := Compare(read(t, "testdata/a.jsonl"), read(t, "testdata/b.jsonl"), 0)
	const unary = 4 // req/s, p50, p99, client CPU: echo has no feed's figures
	if len(res.Rows) != 2*unary || len(res.Fixed) != 0 || len(res.OnlyA)+len(res.OnlyB) != 0 {
		t.Fatalf("rows %d, fixed %v, only %v %v", len(res.Rows), res.Fixed, res.OnlyA, res.OnlyB)
	}
	for _, r := range res.Rows {
		if r.Significant || r.Cmp.N1 != 6 || r.Cmp.N2 != 6 {
			t.Errorf("%s %s: significant=%v (%s)", r.Key, r.Metric.Name, r.Significant, r.Cmp)
		}
	}
	var out bytes.Buffer
	res.Write(&out, "a", "b")
	if strings.Count(out.String(), "~ (p=") != len(res.Rows) {
		t.Errorf("every row should read ~:\n%s", out.String())
	}
	if strings.Contains(out.String(), "msg/s") || strings.Contains(out.String(), "first p50") {
		t.Errorf("echo runs compared on a feed's figures:\n%s", out.String())
	}
}

// GraphQL echoing five payments is several times slower than REST with
// Protobuf bodies: A ran one stack, B the other, and the stack is what
// is compared.
func TestAClearlySlowerStackIsSignificant(t *testing.T) {
	a := read(t, "testdata/a.jsonl")
	res := Compare(only(a, "rest+proto"), only(a, "graphql"), 0)
	if len(res.Fixed) != 1 || res.Fixed[0] != (Fixed{Dim: "stack", A: "rest+proto", B: "graphql"}) {
		t.Fatalf("fixed = %v, want the stack", res.Fixed)
	}
	want := map[string]bool{"req/s": true, "p50 ms": true, "p99 ms": true}
	for _, r := range res.Rows {
		if !want[r.Metric.Name] {
			continue
		}
		slower := (r.Delta() < 0) == r.Metric.HigherIsBetter
		if !r.Significant || !slower {
			t.Errorf("%s: significant=%v delta=%+.2f (%s), want significantly worse", r.Metric.Name, r.Significant, r.Delta(), r.Cmp)
		}
	}
	var out bytes.Buffer
	res.Write(&out, "rest+proto", "graphql")
	if !strings.Contains(out.String(), "compared: stack rest+proto (A) with graphql (B)") || !strings.Contains(out.String(), "(worse)") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestTooFewRepetitionsAreFlagged(t *testing.T) {
	a, b := read(t, "testdata/a.jsonl")[:4], read(t, "testdata/b.jsonl")[:4] // 2 repetitions of each case
	res := Compare(a, b, 0)
	var out bytes.Buffer
	res.Write(&out, "a", "b")
	if !strings.Contains(out.String(), "need >= 4 samples") {
		t.Errorf("no word on the repetitions needed:\n%s", out.String())
	}
}

func TestUnmatchedRunsAreListed(t *testing.T) {
	a := read(t, "testdata/a.jsonl")
	other := only(read(t, "testdata/b.jsonl"), "rest+proto")
	for i := range other {
		other[i].Load = "closed:8"
	}
	b := append(only(read(t, "testdata/b.jsonl"), "graphql"), other...)
	res := Compare(a, b, 0)
	if len(res.OnlyA) != 1 || !strings.HasSuffix(res.OnlyA[0], "closed:1") || len(res.OnlyB) != 1 || !strings.HasSuffix(res.OnlyB[0], "closed:8") {
		t.Errorf("only in A = %v, only in B = %v", res.OnlyA, res.OnlyB)
	}
	var out bytes.Buffer
	res.Write(&out, "a", "b")
	if !strings.Contains(out.String(), "only in A: rest+proto direct echo payment×5 closed:1") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestFailedRunsAreNotCompared(t *testing.T) {
	a := read(t, "testdata/a.jsonl")
	for i := range a {
		if a[i].Stack == "graphql" {
			a[i].Outcome = results.OutcomeFailed
		}
	}
	res := Compare(a, read(t, "testdata/b.jsonl"), 0)
	if len(res.OnlyB) != 1 || !strings.HasPrefix(res.OnlyB[0], "graphql") {
		t.Errorf("only in B = %v, want graphql (A's runs failed)", res.OnlyB)
	}
}

// benchstat reads its input with x/perf/benchfmt: so does this test.
func TestBenchfmtIsReadableByBenchstatsReader(t *testing.T) {
	var out bytes.Buffer
	if _, err := Benchfmt(&out, read(t, "testdata/a.jsonl")); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(&out, "a.txt")
	n := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			n++
			name := string(rec.Name.Full())
			if !strings.HasPrefix(name, "Hopbench/stack=") || !strings.Contains(name, "/load=closed:1") {
				t.Errorf("name %q", name)
			}
			if v, ok := rec.Value("req/s"); !ok || v <= 0 {
				t.Errorf("%s: req/s %v", name, v)
			}
			if string(rec.GetConfig("experiment")) != "same" {
				t.Errorf("experiment config %q", rec.GetConfig("experiment"))
			}
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		}
	}
	if n != 12 {
		t.Errorf("%d results, want 12 (2 cases × 6 repetitions)", n)
	}
}

// partlyFail makes every graphql run of recs one whose calls partly
// failed, flagged as its writer flags it.
func partlyFail(recs []results.Record) []results.Record {
	for i := range recs {
		if recs[i].Stack == "graphql" {
			recs[i].Outcome, recs[i].Errors, recs[i].ErrorsByClass = results.OutcomeErrors, recs[i].Requests/3, map[string]int64{"timeout": recs[i].Requests / 3}
			recs[i].MarkFailures()
		}
	}
	return recs
}

// Runs that partly failed are neither compared nor exported, and each is
// named as left out.
func TestRunsThatPartlyFailedAreLeftOutAndNamed(t *testing.T) {
	a := partlyFail(read(t, "testdata/a.jsonl"))
	res := Compare(a, read(t, "testdata/b.jsonl"), 0)
	if len(res.OnlyB) != 1 || !strings.HasPrefix(res.OnlyB[0], "graphql") || len(res.LeftOutA) == 0 {
		t.Fatalf("only in B %v, left out of A %v: want graphql's runs left out", res.OnlyB, res.LeftOutA)
	}
	var table bytes.Buffer
	if err := res.Write(&table, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "left out of A: graphql") || !strings.Contains(table.String(), "partly failed (") {
		t.Errorf("the table does not name the runs left out:\n%s", table.String())
	}
	var out bytes.Buffer
	leftOut, err := Benchfmt(&out, a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "stack=graphql") || len(leftOut) != len(res.LeftOutA) {
		t.Errorf("benchfmt exports a run that partly failed, or names %d of %d left out", len(leftOut), len(res.LeftOutA))
	}
}

// The benchfmt header names every generator target among the runs, with
// how many runs had each, not the first run's alone.
func TestBenchfmtNamesEachGeneratorTarget(t *testing.T) {
	recs := read(t, "testdata/a.jsonl")
	for i := range recs {
		gc := 400
		if i == 0 {
			gc = 100
		}
		recs[i].Environment.GCPercent = &gc
	}
	var out bytes.Buffer
	if _, err := Benchfmt(&out, recs); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("generator-gogc: 100 in 1 record, 400 in %d records\n", len(recs)-1)
	if !strings.Contains(out.String(), want) {
		t.Errorf("benchfmt header lacks %q:\n%s", want, out.String()[:min(200, out.Len())])
	}
}
