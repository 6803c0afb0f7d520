package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hopbench load against a node process prints the figures a user compares
// with ghz or wrk, under the documented keys.
func TestLoadAgainstANode(t *testing.T) {
	t.Parallel() // the load tests check what is reported, not how fast: they may share the CPUs
	for _, stack := range []string{"rest+proto", "grpc", "graphql"} {
		t.Run(stack, func(t *testing.T) {
			t.Parallel()
			addr := startNode(t, "--stack", stack)
			out, code := hopbench(t, "load", "--stack", stack, "--target", addr, "--op", "echo", "--model", "payment",
				"--count", "5", "--clients", "4", "--duration", "1s", "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			for _, k := range []string{"requests", "errors", "rps", "p50_us", "p90_us", "p99_us", "p999_us", "max_us", "client_cpu_us_per_req"} {
				if _, ok := got[k]; !ok {
					t.Errorf("no %q in %s", k, out)
				}
			}
			if got["requests"].(float64) < 10 || got["errors"].(float64) != 0 || got["p50_us"].(float64) <= 0 {
				t.Errorf("implausible figures: %s", out)
			}
			wire := got["wire_bytes_per_req"].(map[string]any)
			if wire["sent"].(float64) < got["request_body_bytes"].(float64) {
				t.Errorf("fewer bytes on the wire than in the body: %s", out)
			}
		})
	}
}

func TestLoadOverTLSAndAtARate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "tls")
	addr := startNode(t, "--stack", "rest", "--tls-dir", dir, "--mtls")
	out, code := hopbench(t, "load", "--target", addr, "--tls-dir", dir, "--mtls", "--rate", "200", "--duration", "1s", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var got struct {
		Requests    int64
		Uncorrected *struct {
			P99Us int64 `json:"p99_us"`
		}
	}
	json.Unmarshal([]byte(out), &got)
	if got.Requests < 150 || got.Uncorrected == nil {
		t.Errorf("rate 200/s for 1s: %s", out)
	}
}

func TestLoadRefusesBadUseClearly(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"load", "--clients", "2", "--rate", "5"}, 2, "not both"},
		{[]string{"load"}, 2, "--clients N"},
		{[]string{"load", "--stack", "smoke", "--clients", "1"}, 2, "unknown stack"},
		{[]string{"load", "--clients", "1", "--target", "127.0.0.1:1", "--duration", "1s"}, 1, "did not answer"},
	}
	for _, c := range cases {
		stderr, code := hopbenchStderr(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("hopbench %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
	}
}

// hopbench load --capacity against a node prints its capacity and every
// probe; a search that reached max_rate says it is a lower bound.
func TestLoadSearchesACapacity(t *testing.T) {
	t.Parallel()
	addr := startNode(t, "--stack", "grpc")
	out, code := hopbench(t, "load", "--stack", "grpc", "--target", addr, "--capacity", "--sla", "250ms", "--start-rate", "50",
		"--max-rate", "200", "--step", "500ms", "--duration", "10s", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var got struct {
		CapacityRPS float64 `json:"capacity_rps"`
		Capacity    struct {
			LowerBound bool   `json:"lower_bound"`
			Ended      string `json:"ended"`
		} `json:"capacity"`
		Steps []struct {
			Value float64 `json:"value"`
			Probe string  `json:"probe"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.CapacityRPS != 200 || !got.Capacity.LowerBound || len(got.Steps) != 3 || got.Steps[2].Probe != "within" {
		t.Errorf("capacity %v (lower bound %v, %s) over %+v: want ≥ 200 from probes at 50, 100, 200", got.CapacityRPS, got.Capacity.LowerBound, got.Capacity.Ended, got.Steps)
	}
}

// hopbench load --out appends a record that report and compare read, as
// hopbench run writes them: load → report, like vegeta's attack | report.
func TestLoadOutFeedsReportAndCompare(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	for _, stack := range []string{"rest", "grpc"} {
		addr := startNode(t, "--stack", stack)
		if stdout, code := hopbench(t, "load", "--stack", stack, "--target", addr, "--clients", "2", "--duration", "1s", "--out", out); code != 0 {
			t.Fatalf("load --out: exit %d: %s", code, stdout)
		}
	}
	// The same stack with a switch is a case of its own, with the switch
	// in its options and its configuration, not a repetition of the first.
	addr := startNode(t, "--stack", "rest")
	if stdout, code := hopbench(t, "load", "--stack", "rest", "--target", addr, "--clients", "2", "--duration", "1s", "--per-request", "--out", out); code != 0 {
		t.Fatalf("load --per-request --out: exit %d: %s", code, stdout)
	}
	recs := readRecords(t, out)
	if len(recs) != 3 || recs[0]["outcome"] != "ok" || recs[0]["histogram"] == "" || recs[1]["stack"] != "grpc" {
		t.Fatalf("records: %v", recs)
	}
	config, _ := recs[2]["config"].(map[string]any)
	if recs[2]["case"] == recs[0]["case"] || recs[2]["options"] != "per-request" || config["per_request"] != true {
		t.Errorf("a per-request load recorded as case %q (the pooled one: %q), options %q, config %v", recs[2]["case"], recs[0]["case"], recs[2]["options"], config)
	}
	if recs[0]["case"] != "rest direct echo text×10 closed:2" || recs[0]["load"] != "closed:2" {
		t.Errorf("a pooled load recorded as case %q, load %q", recs[0]["case"], recs[0]["load"])
	}
	if stdout, code := hopbench(t, "report", out); code != 0 || !strings.Contains(stdout, "report") {
		t.Fatalf("report: exit %d: %s", code, stdout)
	}
	if stdout, code := hopbench(t, "compare", out, out); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stdout)
	}
}

// The load generator's process collects garbage less often than Go's
// default unless GOGC is set, and its records say at which target.
func TestTheGeneratorsGCTargetIsRecorded(t *testing.T) {
	t.Parallel()
	addr := startNode(t, "--stack", "rest")
	for gogc, want := range map[string]float64{"": 400, "150": 150} {
		out := t.TempDir()
		cmd := exec.Command(bin, "load", "--target", addr, "--clients", "1", "--requests", "20", "--out", out)
		cmd.Env = slices.DeleteFunc(os.Environ(), func(v string) bool { return strings.HasPrefix(v, "GOGC=") })
		if gogc != "" {
			cmd.Env = append(cmd.Env, "GOGC="+gogc)
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("GOGC=%q: %v: %s", gogc, err, b)
		}
		env, _ := readRecords(t, out)[0]["environment"].(map[string]any)
		if env["gc_percent"] != want {
			t.Errorf("GOGC=%q: the record's environment has gc_percent %v, want %v", gogc, env["gc_percent"], want)
		}
	}
}
