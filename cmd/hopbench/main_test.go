package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/nodeapi/nodetest"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/grpc"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// bin is hopbench built once for these end-to-end tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hopbench-bin")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "hopbench")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building hopbench: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func hopbench(t *testing.T, args ...string) (stdout string, exitCode int) {
	t.Helper()
	out, err := exec.Command(bin, args...).Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return string(out), 0
}

// hopbenchStderr runs hopbench and returns what it wrote to stderr.
func hopbenchStderr(t *testing.T, args ...string) (stderr string, exitCode int) {
	t.Helper()
	var buf strings.Builder
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &buf
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return buf.String(), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return buf.String(), 0
}

func TestVersionPrintsEveryLinkedStackLibrary(t *testing.T) {
	out, code := hopbench(t, "version")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"go1.", "google.golang.org/protobuf", "github.com/goccy/go-json",
		"github.com/vmihailenco/msgpack/v5", "github.com/fxamacker/cbor/v2", "github.com/hamba/avro/v2", "github.com/klauspost/compress",
		"google.golang.org/grpc", "github.com/HdrHistogram/hdrhistogram-go"} {
		if !strings.Contains(out, want) {
			t.Errorf("version lacks %s:\n%s", want, out)
		}
	}
}

type record struct {
	Codec       string  `json:"codec"`
	Compress    string  `json:"compress"`
	Bytes       int     `json:"bytes"`
	MarshalNs   float64 `json:"marshal_ns"`
	UnmarshalNs float64 `json:"unmarshal_ns"`
}

func codecRecords(t *testing.T, args ...string) map[string]record {
	t.Helper()
	out, code := hopbench(t, append([]string{"codec", "--format", "json", "--compress", "none", "--samples", "3", "--budget", "200ms"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var records []record
	if err := json.Unmarshal([]byte(out), &records); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	byCodec := map[string]record{}
	for _, r := range records {
		byCodec[r.Codec] = r
	}
	return byCodec
}

// The must-show commands, as a user would run them. Sizes are
// deterministic; timings are only checked for being measured at all
// (the speed comparison is a benchmark: see docs/development.md).
func TestMustShowCommands(t *testing.T) {
	pay := codecRecords(t, "--model", "payment", "--count", "650", "--codec", "json,proto")
	if p, j := pay["proto"].Bytes, pay["json"].Bytes; p == 0 || float64(p) > 0.5*float64(j) {
		t.Errorf("payment 650: proto %d bytes vs json %d", p, j)
	}
	rec := codecRecords(t, "--model", "recipe", "--count", "1", "--codec", "json,proto")
	for name, r := range rec {
		if r.MarshalNs <= 0 || r.UnmarshalNs <= 0 {
			t.Errorf("recipe %s: no timing measured: %+v", name, r)
		}
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	if _, code := hopbench(t, "codec", "--codec", "xml"); code != 2 {
		t.Errorf("unknown codec: exit %d, want 2", code)
	}
	if _, code := hopbench(t, "nope"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

// A node started as a user would: it serves the API on the address it
// prints, and an interrupt stops it cleanly, leaving no process behind.
func TestNodeServesAndStopsOnInterrupt(t *testing.T) {
	cmd := exec.Command(bin, "node", "--stack", "rest+proto", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() // only if the test fails before the interrupt
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatalf("no start-up line: %v", err)
	}
	m := regexp.MustCompile(`serving on (127\.0\.0\.1:\d+), admin on http://(127\.0\.0\.1:\d+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("start-up line %q lacks the addresses", line)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+m[1]+"/v1/ints?count=100", nil)
	req.Header.Set("Accept", "application/x-protobuf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var ints pb.Ints
	if err := proto.Unmarshal(body, &ints); err != nil || len(ints.Values) != 100 || resp.Header.Get("Content-Type") != "application/x-protobuf" {
		t.Fatalf("GET /v1/ints?count=100: %d values, %v, content type %q", len(ints.Values), err, resp.Header.Get("Content-Type"))
	}
	if resp, err := http.Get("http://" + m[2] + "/ready"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("admin /ready: %v", err)
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("node exited with %v after an interrupt, want 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("node still running 10s after an interrupt")
	}
}

// startNode starts `hopbench node` and returns its service address; the
// process is interrupted and awaited when the test ends.
func startNode(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"node", "--listen", "127.0.0.1:0", "--admin", ""}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	line, err := bufio.NewReader(stderr).ReadString('\n')
	m := regexp.MustCompile(`serving on (127\.0\.0\.1:\d+)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("node did not start: %q %v", line, err)
	}
	return m[1]
}

// Two node processes sharing --tls-dir form a mutual-TLS chain, and an
// external client trusting the written CA can call the entry node.
func TestTLSChainAcrossProcesses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tls")
	leaf := startNode(t, "--stack", "rest+json", "--mtls", "--tls-dir", dir)
	entry := startNode(t, "--stack", "rest+json", "--mtls", "--tls-dir", dir, "--downstream", leaf)
	b, err := certs.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: b.Client(true)}}
	resp, err := client.Get("https://" + entry + "/v1/user?count=3")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var users pb.UserList
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, &users); err != nil || len(users.Users) != 3 {
		t.Fatalf("GET through the TLS chain: status %d, %d users, %v: %s", resp.StatusCode, len(users.Users), err, body)
	}
	if out, code := hopbench(t, "node", "--tls", "--downstream", leaf); code != 2 {
		t.Errorf("--tls with --downstream and no --tls-dir: exit %d, want 2 (%s)", code, out)
	}
}

// topology.Processes starts chain:3 as three node processes; a call
// reaches the leaf through both hops, and closing leaves no process.
func TestTopologyAsChildProcesses(t *testing.T) {
	top, _ := topology.Parse("chain:3")
	nodes, err := topology.Start(context.Background(), top, topology.Processes(topology.ProcessConfig{Bin: bin, Node: func(int) nodeapi.Config {
		return nodeapi.Config{Stack: "grpc"}
	}}))
	if err != nil {
		t.Fatal(err)
	}
	pids := make([]int, len(nodes))
	for i, n := range nodes {
		pids[i] = n.(interface{ PID() int }).PID()
	}
	tr, _ := transport.Lookup("grpc")
	cl, err := tr.Dial(context.Background(), nodes[0].Addr(), transport.Config{})
	if err != nil {
		t.Fatal(err)
	}
	protoC, _ := codec.Lookup("proto")
	none, _ := codec.LookupCompression("none")
	out, err := cl.Call(context.Background(), &transport.Request{Op: transport.OpGet, Model: "ints", Count: 50, Codec: protoC, Compression: none})
	cl.Close()
	var ints pb.Ints
	if err != nil || proto.Unmarshal(out, &ints) != nil || len(ints.Values) != 50 {
		t.Fatalf("get through chain:3 processes: %v, %d values", err, len(ints.Values))
	}
	resp, err := http.Get("http://" + nodes[1].(interface{ AdminAddr() string }).AdminAddr() + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	var stats struct{ Requests int64 }
	json.NewDecoder(resp.Body).Decode(&stats)
	resp.Body.Close()
	if stats.Requests != 1 {
		t.Errorf("middle node counted %d requests, want 1", stats.Requests)
	}
	if err := topology.Close(nodes); err != nil {
		t.Errorf("closing: %v", err)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("node process %d still exists after Close", pid)
		}
	}
}

// Two nodes started with default flags but for their service ports do not
// collide on an admin port, and a GraphQL node answers introspection.
func TestNodesWithDefaultFlagsServeSideBySide(t *testing.T) {
	var admins []string
	for range 2 {
		cmd := exec.Command(bin, "node", "--stack", "graphql", "--listen", "127.0.0.1:0")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
		line, _ := bufio.NewReader(stderr).ReadString('\n')
		m := regexp.MustCompile(`serving on (127\.0\.0\.1:\d+), admin on http://(127\.0\.0\.1:\d+)`).FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("node did not start: %q", line)
		}
		admins = append(admins, m[2])
		resp, err := http.Post("http://"+m[1]+"/graphql", "application/json", strings.NewReader(`{"query":"{ __schema { queryType { name } } }"}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), `"queryType":{"name":"Query"}`) {
			t.Errorf("introspection: %s", body)
		}
	}
	if admins[0] == admins[1] {
		t.Errorf("both admin endpoints on %s", admins[0])
	}
}

// hopbench node honours the node contract that a node in any runtime
// implements (nodetest is what another runtime's node is pointed at).
func TestNodeHonoursTheNodeContract(t *testing.T) {
	for _, stack := range []string{"rest", "rest+proto", "grpc", "graphql"} {
		t.Run(stack, func(t *testing.T) { nodetest.Check(t, nodeapi.Config{Stack: stack}, nodetest.Command(bin, "node")) })
	}
}
