package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/cli"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fastTiming keeps CLI tests quick; the timing itself is codecbench's to test.
var fastTiming = []string{"--samples", "3", "--sample-time", "1ms", "--budget", "20ms", "--processes", "1"}

func run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = cli.Run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (rerun with -update if intended):\n%s", name, got)
	}
}

func TestHelpGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{{"help.golden", []string{"--help"}}, {"codec-help.golden", []string{"codec", "--help"}}} {
		out, _, err := run(t, c.args...)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, c.name, out)
	}
}

// Library versions come from the binary's build info, which test binaries
// lack: cmd/hopbench's test checks them on a real build.
func TestVersionListsHopbenchAndGo(t *testing.T) {
	out, _, err := run(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hopbench", "go1."} {
		if !strings.Contains(out, want) {
			t.Errorf("version output lacks %q:\n%s", want, out)
		}
	}
}

func TestCodecJSONCarriesTheRequiredKeys(t *testing.T) {
	args := append([]string{"codec", "--model", "recipe", "--count", "1", "--codec", "json,proto", "--compress", "none", "--format", "json"}, fastTiming...)
	out, _, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	var records []map[string]any
	if err := json.Unmarshal([]byte(out), &records); err != nil {
		t.Fatalf("stdout is not a JSON array: %v\n%s", err, out)
	}
	if len(records) != 2 {
		t.Fatalf("%d records, want 2", len(records))
	}
	for _, r := range records {
		for _, key := range []string{"model", "count", "codec", "compress", "bytes", "marshal_ns", "unmarshal_ns", "marshal_allocs", "unmarshal_allocs"} {
			if _, ok := r[key]; !ok {
				t.Errorf("record %v lacks %q", r, key)
			}
		}
	}
	if records[1]["bytes"].(float64) >= records[0]["bytes"].(float64) {
		t.Errorf("recipe: proto %v bytes, json %v", records[1]["bytes"], records[0]["bytes"])
	}
}

func TestCodecOutWritesEveryFormatAndTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	args := append([]string{"codec", "--model", "int", "--codec", "proto", "--compress", "none", "--out", dir}, fastTiming...)
	out, stderr, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "MODEL") || !strings.Contains(stderr, "results written to") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "codec-*"))
	if len(runs) != 1 {
		t.Fatalf("%d result directories", len(runs))
	}
	for _, name := range []string{"codec.json", "codec.csv", "codec.md", "environment.json"} {
		if st, err := os.Stat(filepath.Join(runs[0], name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	env, _ := os.ReadFile(filepath.Join(runs[0], "environment.json"))
	if !strings.Contains(string(env), `"cpu"`) || !strings.Contains(string(env), `"libraries"`) {
		t.Errorf("environment.json:\n%s", env)
	}
}

func TestBadInputIsAUsageErrorNamingTheFix(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"codec", "--codec", "xml"}, `unknown codec "xml" (known: json, json-fast, proto, msgpack, cbor, avro, avro-resolved)`},
		{[]string{"codec", "--model", "users"}, `unknown payload model "users" (known: user, payment`},
		{[]string{"codec", "--model", "int", "--count", "3"}, "count 3 is above its maximum of 1"},
		{[]string{"codec", "--format", "yaml"}, `--format "yaml": known formats are table, json, csv, markdown`},
		{[]string{"codec", "--count", "many"}, `invalid argument "many"`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"load", "--capacity"}, "--capacity needs --sla"},
		{[]string{"compare", "--format", "benchfmt", "--fail-on", "p50:+10%", "results"}, "--fail-on and --junit gate two sets in a table"},
		{[]string{"load", "--capacity", "--sla", "5ms", "--rate", "100"}, "leave out --clients and --rate"},
		{[]string{"load", "--capacity", "--sla", "5ms", "--percentile", "100"}, "capacity percentile 100"},
		{[]string{"node", "--runtime", "dotnet"}, `--runtime: runtime "dotnet": want go or jvm`},
		{[]string{"node", "--runtime", "jvm", "--stack", "kafka"}, "--runtime jvm: stack kafka: the JVM node serves rest, rest+proto"},
		{[]string{"node", "--runtime", "jvm", "--tls", "--http2"}, "the JVM node does not take --http2, --tls"},
		{[]string{"node", "--schema", "v3"}, `--schema: schema version "v3": want v1 or v2`},
		{[]string{"node", "--runtime", "jvm", "--schema", "v2"}, "the JVM node does not take --schema"},
		{[]string{"node", "--runtime", "jvm", "--downstream", "127.0.0.1:1,127.0.0.1:2"}, "calls one downstream node (chains), not 2"},
		{[]string{"node", "--runtime", "jvm", "--gets", "user"}, `--gets: "user": want MODEL:COUNT`},
		{[]string{"node", "--gets", "user:1"}, "--gets is for --runtime jvm"},
		{[]string{"codec", "--runtime", "jvm", "--codec", "msgpack"}, "--runtime jvm times the codecs [json proto proto+convert], not msgpack"},
		{[]string{"codec", "--runtime", "jvm", "--compress", "gzip"}, "without compression"},
		{[]string{"codec", "--runtime", "jvm", "--samples", "3"}, "--samples is Go's timing"},
		{[]string{"codec", "--runtime", "jvm", "--forks", "0"}, "forks 0: want 1 to 10"},
		{[]string{"codec", "--runtime", "jvm", "--model", "user", "--codec", "proto+convert"}, "proto+convert is Ensor's conversion, for his model, recipe, alone"},
		{[]string{"codec", "--proto", ordersProto}, "--proto needs --message"},
		{[]string{"evolve", "--proto", ordersProto, "--proto-path", ordersPath, "--message", "shop.Order"}, "--proto-v2 FILE: name version 2"},
		{[]string{"evolve", "--proto", ordersProto, "--proto-path", ordersPath, "--message", "shop.Order", "--proto-v2", ordersProto, "--proto-v2-path", ordersPath}, "the same in both versions: nothing changed to try"},
		{[]string{"evolve", "--proto", ordersProto, "--proto-path", ordersPath, "--message", "shop.Order", "--proto-v2", ordersV2Proto, "--proto-v2-path", ordersV2Path, "--codec", "json-fast"}, "codec json-fast cannot carry shop.Order"},
		{[]string{"evolve", "--proto", ordersProto, "--proto-path", ordersPath, "--message", "shop.Order", "--proto-v2", ordersV2Proto, "--proto-v2-path", ordersV2Path, "--path", "v2,v3"}, `schema version "v3"`},
		{[]string{"codec", "--message", "shop.Order"}, "go with --proto FILE"},
		{[]string{"codec", "--proto", ordersProto, "--proto-path", ordersPath, "--message", "shop.Ordr"}, `no message "shop.Ordr"`},
		{[]string{"codec", "--proto", ordersProto, "--proto-path", ordersPath, "--message", "shop.Order", "--codec", "json-fast"}, "codec json-fast cannot carry shop.Order"},
	} {
		_, _, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
			continue
		}
		if code := cli.ExitCode(err); code != 2 {
			t.Errorf("%v: exit code %d, want 2", c.args, code)
		}
	}
}

func TestInterruptedCodecRunPrintsWhatItMeasured(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	err := cli.Run(ctx, []string{"codec", "--model", "int", "--codec", "json"}, &out, &errOut)
	if err == nil || cli.ExitCode(err) != 130 {
		t.Fatalf("got %v (exit %d), want an interruption (exit 130)", err, cli.ExitCode(err))
	}
	if !strings.Contains(err.Error(), "stopped after 0 of 3 cases") {
		t.Errorf("error %q does not say how far the run got", err)
	}
}

// An experiment estimated above an hour asks for --yes before anything
// starts; max_duration in the spec bounds it either way.
func TestALongExperimentAsksFirst(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "long.yaml")
	os.WriteFile(spec, []byte("stacks: [rest]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\nduration: 2h\n"), 0o644)
	out := filepath.Join(dir, "out")
	_, _, err := run(t, "run", spec, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "takes about 2h0m0s") || !strings.Contains(err.Error(), "--yes") || cli.ExitCode(err) != 2 {
		t.Fatalf("a 2-hour experiment: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused experiment left %s behind", out)
	}
	os.WriteFile(spec, []byte("stacks: [rest]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\nduration: 40m\nmax_duration: 30m\n"), 0o644)
	if _, _, err := run(t, "run", spec, "--out", out, "--yes"); err == nil || !strings.Contains(err.Error(), "more than its max_duration of 30m0s") {
		t.Errorf("past max_duration: %v", err)
	}
}

var (
	ordersPath    = "../../examples/proto"
	ordersProto   = ordersPath + "/shop/orders.proto"
	ordersV2Path  = "../../examples/proto-v2"
	ordersV2Proto = ordersV2Path + "/shop/orders.proto"
)

// evolve names the changes between the examples' two versions and gives a
// trial of each change, path and codec (json-fast, which cannot carry a
// user's message, left out).
func TestEvolveTriesEveryChangeOnEveryPathInEveryCodec(t *testing.T) {
	stdout, _, err := run(t, "evolve", "--proto", ordersProto, "--proto-path", ordersPath, "--message", "shop.Order",
		"--proto-v2", ordersV2Proto, "--proto-v2-path", ordersV2Path, "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var trials []struct{ Codec, Change, Path, Outcome string }
	if err := json.Unmarshal([]byte(stdout), &trials); err != nil {
		t.Fatal(err)
	}
	if len(trials) != 4*2*6 {
		t.Fatalf("%d trials, want 4 changes x 2 paths x 6 codecs", len(trials))
	}
	for _, tr := range trials {
		if tr.Codec == "proto" && tr.Change == "field-renamed shop.Order.note" && tr.Outcome != "kept" {
			t.Errorf("proto renamed a field and %s came back %s: Protobuf matches fields by number", tr.Path, tr.Outcome)
		}
	}
	table, _, err := run(t, "evolve", "--proto", ordersProto, "--proto-path", ordersPath, "--message", "shop.Order",
		"--proto-v2", ordersV2Proto, "--proto-v2-path", ordersV2Path, "--codec", "json,proto")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4 changes from v1 to v2 of shop.Order", "shop.Order.note (13) renamed remark in v2, same number", "over v1,v2,v1", "proto, scalar-narrowed common.Money.units over v1,v2,v1: 5 of 5 items: 3000000000 came back as -1294967296"} {
		if !strings.Contains(table, want) {
			t.Errorf("evolve's table does not say %q:\n%s", want, table)
		}
	}
}

func TestCodecMeasuresAUsersMessageInEveryCodecThatCarriesIt(t *testing.T) {
	args := append([]string{"codec", "--proto", ordersProto, "--proto-path", ordersPath, "--message", "shop.Order", "--count", "10", "--compress", "none", "--format", "json"}, fastTiming...)
	stdout, _, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Model string `json:"model"`
		Codec string `json:"codec"`
		Bytes int    `json:"bytes"`
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatal(err)
	}
	bytes := map[string]int{}
	for _, r := range rows {
		if r.Model != "shop.Order" {
			t.Errorf("model %q, want shop.Order alone", r.Model)
		}
		bytes[r.Codec] = r.Bytes
	}
	for _, c := range []string{"json", "proto", "msgpack", "cbor", "avro", "avro-resolved"} {
		if bytes[c] == 0 {
			t.Errorf("no %s row with bytes: %v", c, bytes)
		}
	}
	if _, ok := bytes["json-fast"]; ok {
		t.Error("json-fast measured a message it cannot carry")
	}
	if bytes["proto"] >= bytes["json"] {
		t.Errorf("proto %d bytes, json %d: the proto JSON mapping names every field and proto numbers them", bytes["proto"], bytes["json"])
	}
}
