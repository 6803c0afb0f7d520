package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// One stack per results set, five repetitions each: GraphQL echoing
// payments is several times slower than REST with Protobuf bodies, and
// compare says so; report draws both; advise ranks them.
func TestReportCompareAndAdviseOnFreshRuns(t *testing.T) {
	dirs := map[string]string{}
	for _, stack := range []string{"rest+proto", "graphql"} {
		spec := writeSpec(t, `
name: cmp
stacks: [`+stack+`]
payloads: [{model: payment, counts: [5]}]
loads: [{closed: {clients: 1}}]
duration: 150ms
warmup: 50ms
repetitions: 5
`)
		dirs[stack] = filepath.Join(t.TempDir(), "results")
		if out, code := hopbench(t, "run", spec, "--out", dirs[stack], "--no-calibrate"); code != 0 {
			t.Fatalf("run %s: exit %d\n%s", stack, code, out)
		}
	}

	out, code := hopbench(t, "compare", dirs["rest+proto"], dirs["graphql"])
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "compared: stack rest+proto (A) with graphql (B)") {
		t.Errorf("compare did not find what differs:\n%s", out)
	}
	for _, metric := range []string{"\nreq/s", "\np50 ms"} {
		block := out[strings.Index(out, metric):]
		line := strings.SplitN(block, "\n", 4)[2]
		if !strings.Contains(line, "(worse)") || strings.Contains(line, "~") {
			t.Errorf("%s: want a significant slowdown: %q", metric, line)
		}
	}

	report := filepath.Join(t.TempDir(), "report")
	if out, code := hopbench(t, "report", dirs["rest+proto"], dirs["graphql"], "-o", report); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	html, err := os.ReadFile(filepath.Join(report, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(html), `<svg class="chart"`) < 5 || !strings.Contains(string(html), "graphql") {
		t.Errorf("report.html lacks charts or a stack")
	}

	// Both fit an SLA of a minute; the faster ranks first. A budget of
	// 1 MiB no service meets: each says by how much.
	out, code = hopbench(t, "advise", dirs["rest+proto"], dirs["graphql"], "--model", "payment", "--count", "5", "--sla", "1m")
	if code != 0 {
		t.Fatalf("advise: exit %d\n%s", code, out)
	}
	first, second := strings.Index(out, "1. rest+proto: fits"), strings.Index(out, "2. graphql: fits")
	if first < 0 || second < first || !strings.Contains(out, "measured: p99 ") {
		t.Errorf("advise:\n%s", out)
	}
	out, _ = hopbench(t, "advise", dirs["rest+proto"], dirs["graphql"], "--model", "payment", "--count", "5", "--memory-mib", "1")
	if strings.Count(out, "over the 1 MiB budget") != 2 {
		t.Errorf("advise with a 1 MiB budget:\n%s", out)
	}
}

func TestAdviseMeasuresWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "needs.yaml")
	os.WriteFile(req, []byte("model: user\ncount: 3\nschema_evolution: true\nstacks: [rest, grpc]\n"), 0o644)
	// No results at all here: advise says what is missing.
	cmd := hopbenchIn(t, dir, "advise", "--requirements", req)
	if !strings.Contains(cmd, "Missing: no echo run of user through direct whose figures stand") {
		t.Errorf("advise without results:\n%s", cmd)
	}
	if testing.Short() {
		t.Skip("advise --measure runs its experiment for a quarter of a minute: make test runs it")
	}
	out := hopbenchIn(t, dir, "advise", "--requirements", req, "--measure", "--count", "2")
	if !strings.Contains(out, "Compared on: user×2 through direct") || !strings.Contains(out, "1. grpc: fits") ||
		!strings.Contains(out, "2. rest: does not fit") || !strings.Contains(out, "schema evolution: json bodies carry no schema") {
		t.Errorf("advise --measure:\n%s", out)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "results", "advise-*", "results.jsonl")); len(m) != 1 {
		t.Errorf("the measurement's results were not kept: %v", m)
	}
}

func TestAdviseRefusesBadRequirements(t *testing.T) {
	for _, args := range [][]string{
		{"advise", "--count", "3"},
		{"advise", "--model", "nope", "--count", "3"},
		{"advise", "--model", "user", "--count", "3", "--percentile", "100"},
		{"advise", "--model", "user", "--count", "3", "--stacks", "carrier-pigeon"},
		{"compare", "only-one"},
		{"report", "/no/such/results"},
	} {
		stderr, code := hopbenchStderr(t, args...)
		if code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// hopbenchIn runs hopbench in dir and returns its stdout and stderr.
func hopbenchIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hopbench %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// advise --proto --measure: in an empty directory, advise measures the
// user's own message (examples/proto's shop.Order) on the stacks asked,
// from a requirements file with the message as a spec's payload takes it,
// and ranks them (in either order: that is the measurement's to say)
// with the bytes and CPU a request costs.
func TestAdviseMeasuresAUsersMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("advise --measure runs its experiment for about half a minute: make test runs it")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	req := filepath.Join(dir, "needs.yaml")
	protos := filepath.Join(root, "examples", "proto")
	if err := os.WriteFile(req, []byte("count: 3\nstacks: [rest, rest+proto]\nproto:\n  files: ["+filepath.Join(protos, "shop", "orders.proto")+"]\n  import_paths: ["+protos+"]\n  message: shop.Order\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := hopbenchIn(t, dir, "advise", "--requirements", req, "--measure")
	for _, want := range []string{"Compared on: shop.Order×3 through direct", ". rest+proto: fits", ". rest: fits", "bytes a request: request body"} {
		if !strings.Contains(out, want) {
			t.Errorf("advise --measure does not say %q:\n%s", want, out)
		}
	}
}
