package load_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/wire"
)

func TestARunWhoseCallsFailedCarriesNoFigure(t *testing.T) {
	h := stats.NewHistogram()
	stats.Record(h, time.Microsecond)
	res := &load.Result{Requests: 1000, Errors: 990, ErrorsByClass: map[string]int64{"refused": 900, "protocol": 90}, Elapsed: time.Second, Latency: h}
	why := res.CallsFailed()
	if !strings.Contains(why, "990 of 1000 calls failed (refused 900, protocol 90)") {
		t.Fatalf("reason %q", why)
	}
	f := res.Figures(wire.Totals{Written: 100, Read: 100})
	if f.RPS != 10 || f.ErrorRPS != 990 {
		t.Errorf("rps %v, error rps %v: want replies and failures apart", f.RPS, f.ErrorRPS)
	}
	f.Withhold()
	b, _ := json.Marshal(f)
	for _, k := range []string{`"rps"`, `"p50_us"`, `"p99_us"`, `"mean_us"`, `"wire_bytes_per_req"`, `"client_cpu_us_per_req"`} {
		if strings.Contains(string(b), k) {
			t.Errorf("%s in a record whose calls failed: %s", k, b)
		}
	}
	if !strings.Contains(string(b), `"requests":1000`) || !strings.Contains(string(b), `"refused":900`) {
		t.Errorf("the counts are gone too: %s", b)
	}
	// Late replies are replies: a run whose replies all missed the SLA
	// keeps its figures (its good_rps says 0).
	late := &load.Result{Requests: 100, Errors: 100, ErrorsByClass: map[string]int64{"over_sla": 100}, Elapsed: time.Second, Latency: h}
	if why := late.CallsFailed(); why != "" {
		t.Errorf("late replies called failed: %s", why)
	}
	if why := (&load.Result{Latency: h}).CallsFailed(); !strings.Contains(why, "no call ended") {
		t.Errorf("no calls: %q", why)
	}
	// A generator still sending the warm-up's requests when the window
	// closed says so, not that calls failed to end.
	behind := &load.Result{Latency: h, NotSent: 2_000_000}
	if why := behind.CallsFailed(); !strings.Contains(why, "sent none of the 2000000 requests due in the measured window") {
		t.Errorf("a generator behind its rate: %q", why)
	}
}
