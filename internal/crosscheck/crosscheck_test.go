package crosscheck_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hopbench/hopbench/internal/crosscheck"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/reproduce"
	"github.com/hopbench/hopbench/internal/results"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all"
	"github.com/hopbench/hopbench/reference"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func startRest(t *testing.T) string {
	t.Helper()
	st, _ := transport.ParseStack("rest")
	n, err := node.Start(context.Background(), node.Config{Stack: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n.Addr()
}

const (
	rate     = 50
	duration = 600 * time.Millisecond
	warmup   = 100 * time.Millisecond
)

// hopbenchRun measures the node with hopbench's own engine and client,
// each call delayed by inject first.
func hopbenchRun(t *testing.T, addr string, inject time.Duration) int64 {
	st, _ := transport.ParseStack("rest")
	tgt, err := load.DialTarget(context.Background(), load.TargetConfig{Stack: st, Addr: addr, Op: transport.OpEcho, Model: "text", Count: 12})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	newCall := func() load.Call {
		call := tgt.NewCall()
		return func(ctx context.Context) error {
			time.Sleep(inject)
			return call(ctx)
		}
	}
	res, err := load.Run(context.Background(), load.Config{Kind: load.Rate, Rate: rate, Duration: duration, Warmup: warmup}, newCall)
	if err != nil || res.Errors > 0 {
		t.Fatalf("hopbench: %v, %d errors", err, res.Errors)
	}
	return stats.Summarize(res.Latency).P50Us
}

func independentRun(t *testing.T, addr string) int64 {
	res, err := crosscheck.Run(context.Background(), crosscheck.Config{Addr: addr, Op: transport.OpEcho, Model: "text", Count: 12, Rate: rate, Duration: duration, Warmup: warmup})
	if err != nil || res.Errors > 0 || res.Requests < 20 || res.Good != res.Requests {
		t.Fatalf("independent: %v, %+v", err, res)
	}
	return stats.Summarize(res.Latency).P50Us
}

// check is the paper-vs-here parity check of the two generators over five
// runs each, as the rest-grpc study's generator-agrees finding makes it.
func check(t *testing.T, addr string, inject time.Duration) reproduce.Row {
	var recs []results.Record
	for i := range 5 {
		for _, gen := range []string{"hopbench", "independent"} {
			r := results.Record{Part: "x", Stack: "rest", Outcome: results.OutcomeOK, Case: "x " + gen, Repetition: i}
			if gen == "independent" {
				r.Options, r.P50Us = "independent", independentRun(t, addr)
			} else {
				r.P50Us = hopbenchRun(t, addr, inject)
			}
			recs = append(recs, r)
		}
	}
	f := reference.Finding{ID: "generator-agrees", Claim: "c", HoldsWhen: reference.About, Stated: &reference.Stated{Quote: "q", Where: "w"},
		Here: reference.Here{Measure: "p50", Num: map[string]string{"part": "x", "generator": "hopbench"}, Den: map[string]string{"part": "x", "generator": "independent"}}}
	return reproduce.Check(&reference.Study{Findings: []reference.Finding{f}}, reproduce.Measured{Records: recs})[0]
}

// One millisecond slipped into hopbench's client path is caught: the two
// generators' medians are then apart by more than the equivalence band,
// and the check says so; without it the interval sits well below.
func TestTheCrossCheckCatchesAMillisecondInHopbenchsClient(t *testing.T) {
	if testing.Short() {
		t.Skip("times two generators against a node: seconds")
	}
	addr := startRest(t)
	slowed := check(t, addr, time.Millisecond)
	if slowed.Verdict != reproduce.DoesNotHold || slowed.Low < 1+reference.Equivalence {
		t.Fatalf("1 ms injected: %s ×%.2f [%.2f, %.2f] (%s); want does not hold, the interval above the band", slowed.Verdict, slowed.Ratio, slowed.Low, slowed.High, slowed.Why)
	}
	plain := check(t, addr, 0)
	if plain.High >= slowed.Low {
		t.Fatalf("without injection ×%.2f [%.2f, %.2f] reaches the injected run's ×%.2f [%.2f, %.2f]", plain.Ratio, plain.Low, plain.High, slowed.Ratio, slowed.Low, slowed.High)
	}
	t.Logf("injected ×%.2f [%.2f, %.2f] %s; plain ×%.2f [%.2f, %.2f] %s", slowed.Ratio, slowed.Low, slowed.High, slowed.Verdict, plain.Ratio, plain.Low, plain.High, plain.Verdict)
}

// What the minimal client cannot read is an error of a named class, not
// a figure.
func TestRepliesTheClientCannotReadAreErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		handler http.HandlerFunc
		class   string
	}{
		{"chunked", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("{}"))
			w.(http.Flusher).Flush()
		}, "protocol"},
		{"status 500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 500) }, "application"},
		{"not the payload", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "5")
			w.Write([]byte("hello"))
		}, "protocol"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			res, err := crosscheck.Run(context.Background(), crosscheck.Config{Addr: strings.TrimPrefix(srv.URL, "http://"), Op: transport.OpGet, Model: "user", Count: 1, Rate: 100, Duration: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests == 0 || res.Errors != res.Requests || res.ErrorsByClass[c.class] != res.Requests || res.Good != 0 {
				t.Fatalf("%d requests, %d errors %v, %d good; want every one an error of class %s", res.Requests, res.Errors, res.ErrorsByClass, res.Good, c.class)
			}
		})
	}
	if _, err := crosscheck.Run(context.Background(), crosscheck.Config{Addr: "127.0.0.1:1", Op: transport.OpGet, Model: "user", Count: 1}); err == nil || !strings.Contains(err.Error(), "positive rate") {
		t.Errorf("no rate: %v", err)
	}

}
