package main_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/metrics/metricstest"
)

// loadFigures are what a test reads of hopbench load's JSON.
type loadFigures struct {
	Requests int64   `json:"requests"`
	RPS      float64 `json:"rps"`
}

func runLoad(t *testing.T, args ...string) loadFigures {
	t.Helper()
	out, code := hopbench(t, append([]string{"load", "--format", "json"}, args...)...)
	var got loadFigures
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Requests == 0 {
		t.Fatalf("load: exit %d (%v): %s", code, err, out)
	}
	return got
}

// The check against the real thing: Debian's Prometheus server,
// scraping a live hopbench load every second, answers PromQL over its
// HTTP API with the load's request count and rate as hopbench recorded
// them (within 5 %), and with one label set: the load's stack and case.
func TestPrometheusScrapesALiveLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Debian's prometheus server (make test installs it: scripts/setup.sh prometheus)")
	}
	node := startNode(t, "--stack", "rest")
	target, err := brokertest.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	prom := startPrometheus(t, target)
	got := runLoad(t, "--stack", "rest", "--target", node, "--rate", "200", "--duration", "8s",
		"--metrics-listen", target, "--metrics-linger", "20s")
	// The linger ended with a scrape of the final figures; the server
	// stores a scrape a moment after serving it.
	var total float64
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if total = promScalar(t, prom, `hopbench_requests_total{stack="rest"}`); total >= float64(got.Requests) {
			break
		}
	}
	rate := promScalar(t, prom, `avg_over_time(hopbench_achieved_rate_per_second{stack="rest"}[5m])`)
	t.Logf("Prometheus: %v requests at %.1f/s; hopbench recorded %d at %.1f/s", total, rate, got.Requests, got.RPS)
	if !within(total, float64(got.Requests), 0.05) || !within(rate, got.RPS, 0.05) {
		t.Errorf("Prometheus: %v requests at %.1f/s; hopbench recorded %d at %.1f/s", total, rate, got.Requests, got.RPS)
	}
	var sets []string
	for _, m := range promVector(t, prom, `group by (stack, case) ({__name__=~"hopbench_.+"})`) {
		sets = append(sets, fmt.Sprintf("stack=%q case=%q", m["stack"], m["case"]))
	}
	slices.Sort(sets)
	// hopbench_runs_total is the command's: it has neither label.
	want := []string{`stack="" case=""`, `stack="rest" case="rest direct echo text×10 rate:200"`}
	if !slices.Equal(sets, want) {
		t.Errorf("label sets %q, want %q", sets, want)
	}
}

func within(got, want, share float64) bool { return math.Abs(got-want) <= share*want }

// startPrometheus runs Debian's prometheus in a temporary directory,
// scraping target every second, until the test ends (its process group
// killed: no orphan), and returns its HTTP API's address.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus not found: install Debian's prometheus package (scripts/setup.sh prometheus; make test does)")
	}
	dir := t.TempDir()
	config := fmt.Sprintf("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: hopbench\n    static_configs:\n      - targets: [%q]\n", target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, err := brokertest.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("prometheus exited: %v: %s", err, log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready at %s after 30s: %s", addr, log.String())
		}
	}
}

// promResult is one element of an instant vector from the HTTP API.
type promResult struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

func promQuery(t *testing.T, addr, query string) []promResult {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string       `json:"resultType"`
			Result     []promResult `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" || body.Data.ResultType != "vector" {
		t.Fatalf("%s: %v, %+v", query, err, body)
	}
	return body.Data.Result
}

// promScalar is the value of a query of one series (0 when it has none).
func promScalar(t *testing.T, addr, query string) float64 {
	t.Helper()
	res := promQuery(t, addr, query)
	if len(res) == 0 {
		return 0
	}
	if len(res) > 1 {
		t.Fatalf("%s: %d series: %v", query, len(res), res)
	}
	s, _ := res[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%s: value %v", query, res[0].Value)
	}
	return v
}

// promVector is the label sets of a query's series.
func promVector(t *testing.T, addr, query string) []map[string]string {
	t.Helper()
	var sets []map[string]string
	for _, r := range promQuery(t, addr, query) {
		sets = append(sets, r.Metric)
	}
	return sets
}

// hopbench load --otlp-endpoint pushes to a real OTLP receiver (the
// collector's metrics service from the protocol's definitions), whose
// final push counts the requests hopbench recorded.
func TestOTLPReceivesALoadsCounts(t *testing.T) {
	t.Parallel()
	rcv := metricstest.NewReceiver(t)
	node := startNode(t, "--stack", "grpc")
	got := runLoad(t, "--stack", "grpc", "--target", node, "--rate", "200", "--duration", "2s", "--otlp-endpoint", rcv.Addr)
	reqs := rcv.Latest("hopbench.requests")
	if n := metricstest.SumOf(reqs, map[string]string{"stack": "grpc", "case": "grpc direct echo text×10 rate:200"}); n != got.Requests {
		t.Errorf("the receiver counted %d requests, hopbench %d", n, got.Requests)
	}
}

// hopbench run --otlp-endpoint pushes each case's requests as its records
// count them (repetitions add into one series) and the runs ended of
// those planned.
func TestRunExportsEachCaseLive(t *testing.T) {
	t.Parallel()
	rcv := metricstest.NewReceiver(t)
	spec := writeSpec(t, `
name: live
stacks: [rest, grpc]
payloads: [{model: user, counts: [3]}]
loads: [{closed: {clients: 2}}]
repetitions: 2
duration: 500ms
warmup: 100ms
`)
	out := filepath.Join(t.TempDir(), "results")
	if stdout, code := hopbench(t, "run", spec, "--out", out, "--no-calibrate", "--otlp-endpoint", rcv.Addr); code != 0 {
		t.Fatalf("exit %d: %s", code, stdout)
	}
	recorded := map[string]int64{}
	for _, r := range readRecords(t, out) {
		recorded[r["case"].(string)] += int64(r["requests"].(float64))
	}
	reqs := rcv.Latest("hopbench.requests")
	for name, n := range recorded {
		if got := metricstest.SumOf(reqs, map[string]string{"case": name}); got != n {
			t.Errorf("case %q: %d requests received, %d recorded", name, got, n)
		}
	}
	runs := metricstest.SumOf(rcv.Latest("hopbench.runs"), nil)
	planned := rcv.Latest("hopbench.runs.planned").GetGauge().GetDataPoints()
	if len(recorded) != 2 || runs != 4 || len(planned) != 1 || planned[0].GetAsInt() != 4 {
		t.Errorf("cases %v; runs %d ended of %v planned, want 4 of 4", recorded, runs, planned)
	}
}
