package reproduce

import (
	"math"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/results"
)

// Fisher's exact test against values published for it: 0 of 5 against 5
// of 5 is 2/252; the classic tea-tasting-style table [[1, 9], [11, 3]]
// is p = 0.002759 (two-sided).
func TestFisherExactMatchesKnownValues(t *testing.T) {
	for _, c := range []struct {
		a, b, c, d int
		p          float64
	}{{0, 5, 5, 0, 2.0 / 252}, {1, 9, 11, 3, 0.002759}, {3, 2, 3, 2, 1}, {0, 0, 0, 5, 1}} {
		if p := FisherExact(c.a, c.b, c.c, c.d); math.Abs(p-c.p) > 5e-6 {
			t.Errorf("%v: p = %.6f, want %.6f", c, p, c.p)
		}
	}
}

// killed is a run stopped by its memory limit with good of its measured
// requests answered, and warmedUp if a reply came in its warm-up.
func killed(stack string, requests, good int64, warmedUp bool) results.Record {
	r := rec("flat", stack, 3, "", results.OutcomeOutOfMemory, 0, 0)
	r.Requests, r.Errors = requests, requests-good
	if warmedUp || good > 0 {
		r.ResponseBodyBytes = 48096255
	}
	return r
}

// The thesis judged "it completed" by a reply delivered before the kill:
// 5 of 5 Protobuf runs delivered theirs (in the warm-up, as the committed
// JVM runs did; their measured request was refused by the kill) and 0 of
// 5 JSON runs did, so
// JSON fails where Protobuf completes (Fisher p = 0.008), though every
// run of both ended killed; 0 against 0 decides nothing.
func TestACompletedClaimIsJudgedOnRepliesDelivered(t *testing.T) {
	var recs []results.Record
	for range 5 {
		recs = append(recs, killed("rest", 0, 0, false), killed("rest+proto", 1, 0, true)) // the thesis's JVM runs: proto's reply came before the kill
		recs = append(recs, killed("rest+gzip", 1, 0, false), killed("grpc", 0, 0, false))
	}
	sel := func(stack string) map[string]string { return map[string]string{"part": "flat", "stack": stack} }
	rows := Check(study(
		directionOnly(finding("json-fails", MeasureDelivered, "less than 1", sel("rest"), sel("rest+proto"))),
		directionOnly(finding("none-either", MeasureDelivered, "less than 1", sel("rest+gzip"), sel("grpc"))),
	), Measured{Records: recs})
	fails, none := rows[0], rows[1]
	if fails.Verdict != Holds || !strings.Contains(fails.Test, "0 of 5 against 5 of 5 runs delivered a reply: p=0.0079") {
		t.Errorf("json-fails: %s (%s; %s)", fails.Verdict, fails.Test, fails.Why)
	}
	if none.Verdict != Inconclusive {
		t.Errorf("none against none: %s (%s; %s), want inconclusive", none.Verdict, none.Test, none.Why)
	}
}

// A parity claim with the study's own tolerance is judged against it:
// two generators ×1.12 apart, tightly, hold within the study's "reasonably
// close" (×0.82) but not within the default ±10 %, and either way the
// row says they differ significantly.
func TestAParityClaimTakesTheStudysOwnTolerance(t *testing.T) {
	var recs []results.Record
	recs = append(recs, runs("x", "hopbench", 1120, 1121, 1119, 1122, 1118)...)
	recs = append(recs, runs("x", "independent", 1000, 1001, 999, 1002, 998)...)
	sel := func(stack string) map[string]string { return map[string]string{"part": "x", "stack": stack} }
	own := directionOnly(finding("own", "p50", "about 1", sel("hopbench"), sel("independent")))
	own.Band = 0.8237
	def := directionOnly(finding("default", "p50", "about 1", sel("hopbench"), sel("independent")))
	rows := Check(study(own, def), Measured{Records: recs})
	if rows[0].Verdict != Holds || !strings.Contains(rows[0].Test, "the study's own tolerance, ×0.824 to ×1.21") {
		t.Errorf("own tolerance: %s (%s; %s)", rows[0].Verdict, rows[0].Test, rows[0].Why)
	}
	if rows[1].Verdict != DoesNotHold {
		t.Errorf("default band: %s (%s; %s), want does not hold", rows[1].Verdict, rows[1].Test, rows[1].Why)
	}
	for _, r := range rows {
		if !strings.Contains(r.Why, "the two differ significantly here (×1.12") {
			t.Errorf("%s does not say the sides differ: %q", r.Finding.ID, r.Why)
		}
	}
}
