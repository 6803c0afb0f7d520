package experiment

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/transport"
)

var update = flag.Bool("update", false, "rewrite the committed JSON Schema")

const base = `
stacks: [rest, grpc]
payloads: [{model: text, counts: [10]}]
loads: [{closed: {clients: 1}}]
`

// with adds lines to the base spec; a key given in extra replaces the base's.
func with(extra string) string {
	out := extra
	for _, line := range strings.Split(strings.TrimSpace(base), "\n") {
		key, _, _ := strings.Cut(line, ":")
		if !strings.Contains(extra, key+":") {
			out += "\n" + line
		}
	}
	return out
}

// invalidSpecs are specs each wrong in one place: where, and what the
// error must say.
var invalidSpecs = []struct {
	name, spec, path, want string
}{
	{"unknown top-level field", with("stackz: [rest]"), "stackz", "unknown field (known here: name, stacks"},
	{"unknown nested field", with("loads: [{closed: {clientz: 3}}]"), "loads[0].closed.clientz", "known here: clients"},
	{"field given twice", with("seed: 1\nseed: 2"), "seed", "given twice"},
	{"name with a slash", with("name: a/b"), "name", "slashes"},
	{"no stacks", with("stacks: []"), "stacks", "none given"},
	{"unknown stack", with("stacks: [rest, soap]"), "stacks[1]", "unknown stack technology"},
	{"stack codec not carried", with("stacks: [grpc+json]"), "stacks[0]", "grpc carries"},
	{"stack twice", with("stacks: [rest, rest]"), "stacks[1]", "listed twice"},
	{"stacks not a list", with("stacks: rest"), "stacks", "want a list"},
	{"no payloads", with("payloads: []"), "payloads", "none given"},
	{"unknown model", with("payloads: [{model: xml, counts: [1]}]"), "payloads[0].model", "unknown"},
	{"no counts", with("payloads: [{model: user}]"), "payloads[0].counts", "none given"},
	{"count out of range", with("payloads: [{model: int, counts: [1, 2]}]"), "payloads[0].counts[1]", ""},
	{"body past the limit", with("payloads: [{model: text, counts: [1000000000]}]"), "payloads[0].counts[0]", "over the 67108864 bytes a body may have"},
	{"count not a number", with("payloads: [{model: user, counts: [ten]}]"), "payloads[0].counts[0]", "not a whole number"},
	{"unknown op", with("ops: [put]"), "ops[0]", "known: get, post, echo"},
	{"bad topology", with("topologies: [ring:3]"), "topologies[0]", "unknown kind"},
	{"no loads", with("loads: []"), "loads", "none given"},
	{"ramp cut short", with("duration: 2s\nloads: [{ramp: {of: clients, from: 10, to: 50, step: 20, every: 2s}}]"), "duration", "before its last step: its steps take 6s"},
	{"two load kinds", with("loads: [{closed: {clients: 1}, rate: {rate: 5}}]"), "loads[0]", "exactly one"},
	{"no clients", with("loads: [{closed: {clients: 0}}]"), "loads[0].closed.clients", "at least 1"},
	{"too many clients", with("loads: [{closed: {clients: 100000000}}]"), "loads[0].closed.clients", "limit of 10000 (each is a goroutine and, over HTTP/1.1, a connection of its own); raise it with limits: {clients: N}"},
	{"clients past a raised bound", with("limits: {clients: 20}\nloads: [{closed: {clients: 21}}]"), "loads[0].closed.clients", "limit of 20 "},
	{"a bound past the open-file limit", with("limits: {clients: 2000000000}"), "limits", "open-file limit"},
	{"rate past the bound", with("loads: [{rate: {rate: 1000000000000}}]"), "loads[0].rate.rate", "limit of 1000000 requests/s; raise it with limits: {rate: N} in the spec, or --rate-limit N"},
	{"ramp past the bound", with("loads: [{ramp: {of: rate, from: 1, to: 1e9, step: 1e8, every: 1s}}]"), "loads[0].ramp.to", "limit of 1000000 requests/s"},
	{"no rate", with("loads: [{rate: {rate: 0}}]"), "loads[0].rate.rate", "positive"},
	{"bad arrivals", with("loads: [{rate: {rate: 5, arrivals: bursty}}]"), "loads[0].rate.arrivals", "constant or poisson"},
	{"negative workers", with("loads: [{rate: {rate: 5, workers: -1}}]"), "loads[0].rate.workers", "positive"},
	{"ramp of what", with("loads: [{ramp: {of: bytes, from: 1, to: 2, step: 1, every: 1s}}]"), "loads[0].ramp.of", "clients or rate"},
	{"ramp from", with("loads: [{ramp: {of: clients, from: 0, to: 2, step: 1, every: 1s}}]"), "loads[0].ramp.from", "positive"},
	{"ramp to", with("loads: [{ramp: {of: clients, from: 5, to: 2, step: 1, every: 1s}}]"), "loads[0].ramp.to", "at least from"},
	{"ramp step", with("loads: [{ramp: {of: rate, from: 1, to: 2, every: 1s}}]"), "loads[0].ramp.step", "positive step"},
	{"ramp every", with("loads: [{ramp: {of: rate, from: 1, to: 2, step: 1, every: 1500ms}}]"), "loads[0].ramp.every", "whole seconds"},
	{"capacity without sla", with("loads: [{capacity: {percentile: 99}}]"), "loads[0].capacity.sla", "none given"},
	{"capacity percentile", with("loads: [{capacity: {sla: 5ms, percentile: 100}}]"), "loads[0].capacity", "between 0 and 100"},
	{"capacity step", with("loads: [{capacity: {sla: 5ms, step: 10ms}}]"), "loads[0].capacity", "at least 500ms"},
	{"capacity rates", with("loads: [{capacity: {sla: 5ms, start: 5000, max_rate: 10}}]"), "loads[0].capacity", "start ≤ max_rate"},
	{"capacity budget", with("loads: [{capacity: {sla: 5ms, budget: 2h}}]"), "loads[0].capacity.budget", "up to 1h"},
	{"capacity arrivals", with("loads: [{capacity: {sla: 5ms, arrivals: bursty}}]"), "loads[0].capacity.arrivals", "constant or poisson"},
	{"bad duration", with("duration: soon"), "duration", "not a duration"},
	{"negative duration", with("duration: -1s"), "duration", "zero or more"},
	{"bad warmup", with("warmup: [1s]"), "warmup", "want a duration"},
	{"requests with rate", with("requests: 10\nloads: [{rate: {rate: 5}}]"), "requests", "closed loads only"},
	{"negative requests", with("requests: -4"), "requests", "positive"},
	{"repetitions", with("repetitions: 5000"), "repetitions", "1 to 1000"},
	{"bad sla", with("sla: 1 second"), "sla", "not a duration"},
	{"bad timeout", with("timeout: 5"), "timeout", "not a duration"},
	{"bad tls", with("tls: maybe"), "tls", "true, false or a list"},
	{"mtls without tls", with("mtls: true"), "mtls", "needs tls"},
	{"bad http2", with("http2: [yes please]"), "http2", "true, false or a list"},
	{"bad cache", with("cache: 3x"), "cache", "true, false or a list"},
	{"bad pin", with("pin: cpu0"), "pin", "none, split"},
	{"bad memory", with("memory: lots"), "memory", "not a size"},
	{"tiny memory", with("memory: 1MiB"), "memory", "at least 16MiB"},
	{"connections", with("connections: 5000"), "connections", "1 to 1024"},
	{"connections of no kind", with("connections: [pooled, sometimes]"), "connections", `"sometimes": want a number of pooled connections`},
	{"connections twice", with("connections: [pooled, 1]"), "connections", "given twice"},
	{"kafka per request", with("stacks: [rest, kafka]\nconnections: [pooled, per-request]"), "stacks[1]", "kafka takes no per-request connections"},
	{"bad seed", with("seed: -1"), "seed", "not a whole number"},
	{"options not a mapping", with("transport_options: [amqp.reply]"), "transport_options", "technology.option: value"},
	{"option without technology", with("stacks: [amqp]\ntransport_options: {reply: queue}"), "transport_options.reply", "want technology.option"},
	{"option of unknown technology", with("transport_options: {mqtt.qos: 1}"), "transport_options.mqtt.qos", "unknown stack technology"},
	{"option of an unlisted stack", with("transport_options: {kafka.acks: all}"), "transport_options.kafka.acks", "no kafka stack"},
	{"unknown option", with("stacks: [amqp]\ntransport_options: {amqp.acks: all}"), "transport_options.amqp.acks", "known: reply, prefetch"},
	{"bad option value", with("stacks: [kafka]\ntransport_options: {kafka.acks: some}"), "transport_options.kafka.acks", "all leader none"},
	{"matrix too large", with("repetitions: 1000\npayloads: [{model: text, counts: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}]"), "(top level)", "at most 10000"},
	{"top level not a mapping", "- rest", "(top level)", "want a mapping"},
	{"not yaml", "stacks: [rest", "", "not valid YAML"},
}

func TestEveryFieldIsValidated(t *testing.T) {
	for _, c := range invalidSpecs {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.spec))
			if err == nil {
				t.Fatalf("accepted:\n%s", c.spec)
			}
			if !strings.Contains(err.Error(), "spec: "+c.path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want one at %q saying %q", err, c.path, c.want)
			}
		})
	}
}

func TestAFullSpecExpandsToItsMatrix(t *testing.T) {
	s, err := Parse([]byte(`
name: full
stacks: [rest, rest+proto+gzip, grpc]
payloads:
  - {model: user, counts: [1, 100]}
  - {model: payment, counts: [5]}
ops: [get, post]
topologies: [direct, chain:3]
loads:
  - closed: {clients: 4}
  - rate: {rate: 100, arrivals: poisson, workers: 8}
  - ramp: {of: clients, from: 10, to: 200, step: 10, every: 30s}
warmup: 0s
repetitions: 2
sla: 500ms
tls: [false, true]
mtls: true
cache: true
pin: split
memory: 400MiB
order: listed
`))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	want := 2 * 2 * 3 * 2 * 3 * 2 * 3 // reps, topologies, payload counts, ops, loads, tls, stacks
	if len(runs) != want {
		t.Fatalf("%d runs, want %d", len(runs), want)
	}
	r := runs[0]
	if r.Stack != "rest" || runs[1].Stack != "rest+proto+gzip" || r.Repetition != 0 || runs[len(runs)-1].Repetition != 1 {
		t.Errorf("order: first %+v", r)
	}
	if time.Duration(r.Warmup) != 0 || r.Memory != 400<<20 || r.Pin != "split" || !r.Cache || time.Duration(r.SLA) != 500*time.Millisecond {
		t.Errorf("fields not carried: %+v", r)
	}
	cases := map[string]int{}
	for _, r := range runs {
		cases[r.Case()]++
		if r.MTLS && !r.TLS {
			t.Fatalf("mutual TLS without TLS: %+v", r)
		}
		if r.Load.Ramp != nil && time.Duration(r.Duration) != 20*30*time.Second {
			t.Errorf("ramp duration %v, want every step once (10m)", time.Duration(r.Duration))
		}
		if c := r.LoadConfig(); c.Validate() != nil {
			err := c.Validate()
			t.Fatalf("run %d: %v", r.Index, err)
		}
	}
	if len(cases) != want/2 {
		t.Errorf("%d distinct cases, want %d (each repeated twice)", len(cases), want/2)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

func TestDefaults(t *testing.T) {
	s, err := Parse([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	r := s.Runs()[0]
	if r.Op != "echo" || r.Topology != "direct" || time.Duration(r.Warmup) != time.Second || time.Duration(r.Duration) != DefaultDuration ||
		time.Duration(r.SLA) != time.Second || r.Pin != "none" || r.Connections != 1 || r.TLS || r.Seed != 1 {
		t.Errorf("defaults: %+v", r)
	}
	if got := r.Case(); got != "rest direct echo text×10 closed:1" {
		t.Errorf("case %q", got)
	}
}

func TestPresetsAndExamplesParse(t *testing.T) {
	files, _ := filepath.Glob("../../presets/*.yaml")
	if len(files) == 0 {
		t.Fatal("no presets")
	}
	for _, f := range files {
		if _, err := ReadFile(f); err != nil {
			t.Error(err)
		}
	}
}

func TestJSONSchemaIsCommitted(t *testing.T) {
	got, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := "../../schema/experiment.schema.json"
	if *update {
		os.WriteFile(path, got, 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s is stale or missing (%v): go test ./internal/experiment -update", path, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(got, &doc); err != nil || doc["properties"] == nil {
		t.Fatalf("not a schema: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(base))
	f.Add([]byte(with("loads: [{ramp: {of: rate, from: 1, to: 2, step: 1, every: 1s}}]\ntls: [false, true]\nmemory: 400MiB")))
	f.Add([]byte("a: &x [1]\nb: *x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		// Whatever Parse accepts expands to runs the engine accepts.
		runs := s.Runs()
		if len(runs) == 0 {
			t.Fatal("a valid spec with no runs")
		}
		for _, r := range runs[:min(len(runs), 50)] {
			if c := r.LoadConfig(); c.Validate() != nil {
				err := c.Validate()
				t.Fatalf("run %+v: %v", r, err)
			}
		}
	})
}

// The quick preset, which make run runs, covers every registered stack.
func TestTheQuickPresetCoversEveryStack(t *testing.T) {
	s, err := ReadFile("../../presets/quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, st := range s.Stacks {
		parsed, _ := transport.ParseStack(st)
		covered[parsed.Transport] = true
	}
	for _, name := range transport.Names() {
		if !covered[name] {
			t.Errorf("presets/quick.yaml has no %s stack", name)
		}
	}
}

const withParts = `
name: study
stacks: [rest, rest+proto]
payloads: [{model: user, counts: [5]}]
loads: [{closed: {clients: 1}}]
requests: 100
order: listed
parts:
  - name: latency
    ops: [get]
    cache: [false, true]
  - name: sizes
    ops: [post]
    payloads: [{model: payment, counts: [5, 650]}]
scales:
  quick:
    requests: 5
    parts:
      sizes: {payloads: [{model: payment, counts: [5]}]}
`

func TestPartsRunOneAfterAnotherEachOverTheTopLevel(t *testing.T) {
	s, err := Parse([]byte(withParts))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	// latency: 2 stacks x 2 cache; sizes: 2 stacks x 2 counts.
	if len(runs) != 8 {
		t.Fatalf("%d runs, want 8", len(runs))
	}
	for i, r := range runs {
		want := "latency"
		if i >= 4 {
			want = "sizes"
		}
		if r.Part != want || r.Index != i || r.Requests != 100 || !strings.HasPrefix(r.Case(), want+": ") {
			t.Errorf("run %d: part %q index %d requests %d case %q", i, r.Part, r.Index, r.Requests, r.Case())
		}
	}
	if runs[4].Model != "payment" || runs[0].Model != "user" || runs[4].Op != "post" || !runs[1].Cache && !runs[3].Cache {
		t.Errorf("parts did not write their fields over the top level: %+v / %+v", runs[0], runs[4])
	}
}

func TestRunsAreShuffledWithinEachRepetitionAcrossParts(t *testing.T) {
	spec := strings.Replace(withParts, "order: listed\n", "repetitions: 3\n", 1)
	listed, err := Parse([]byte(strings.Replace(withParts, "order: listed\n", "repetitions: 3\norder: listed\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Parse([]byte(spec))
	want, got, again := listed.Runs(), a.Runs(), b.Runs()
	if len(got) != 24 || len(want) != 24 {
		t.Fatalf("%d and %d runs, want 24", len(got), len(want))
	}
	key := func(r Run) string { return fmt.Sprintf("%d %s", r.Repetition, r.Case()) }
	moved := 0
	for i, r := range got {
		if r.Index != i || r.OrderSeed != 1 || key(r) != key(again[i]) {
			t.Fatalf("run %d: index %d, order seed %d, %q then %q: want the index, the seed recorded, one order for one seed", i, r.Index, r.OrderSeed, key(r), key(again[i]))
		}
		// Repetitions stay outermost, across parts: rep 0 is runs 0-7.
		if r.Repetition != i/8 {
			t.Fatalf("run %d is of repetition %d: want every case once before any twice", i, r.Repetition)
		}
		if key(r) != key(want[i]) {
			moved++
		}
		if want[i].OrderSeed != 0 {
			t.Fatalf("a listed run records order seed %d", want[i].OrderSeed)
		}
	}
	sorted := func(rs []Run) []string {
		var ks []string
		for _, r := range rs {
			ks = append(ks, key(r))
		}
		slices.Sort(ks)
		return ks
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("shuffling changed which runs are made")
	}
	if moved < 12 {
		t.Fatalf("only %d of 24 runs moved from the listed order", moved)
	}
	if _, err := Parse([]byte(spec + "order: random\n")); err == nil || !strings.Contains(err.Error(), "order") {
		t.Fatalf("order: random was accepted or not named: %v", err)
	}
}

func TestAScaleWritesOverTheSpecAndItsParts(t *testing.T) {
	s, err := ParseScale([]byte(withParts), "quick")
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 6 || s.Scale() != "quick" {
		t.Fatalf("%d runs at scale %q, want 6 at quick", len(runs), s.Scale())
	}
	for _, r := range runs {
		if r.Requests != 5 || r.Part == "sizes" && r.Count != 5 {
			t.Errorf("%s: requests %d count %d", r.Case(), r.Requests, r.Count)
		}
	}
}

func TestScalesAndPartsRefuseMistakes(t *testing.T) {
	for _, c := range []struct{ name, spec, scale, want string }{
		{"unknown scale", withParts, "huge", `no scale "huge" (this spec's scales: quick)`},
		{"scale without scales", with(""), "quick", "this spec has no scales"},
		{"part without a name", with("parts: [{ops: [get]}]"), "", "every part needs a name"},
		{"two parts one name", with("parts: [{name: a}, {name: a}]"), "", `"a" names two parts`},
		{"part sets the study", with("parts: [{name: a, study: ensor}]"), "", "parts[0].study"},
		{"bad field in a part", with("parts: [{name: a, ops: [put]}]"), "", "parts[0] (a)"},
		{"scale names a missing part", withParts + "  tiny: {parts: {nope: {requests: 1}}}\n", "tiny", "scales.tiny.parts.nope"},
		{"unknown study", with("study: folklore"), "", `no study "folklore"`},
		{"unknown codec", with("codecs: [json, xml]"), "", "codecs[1]"},
		{"parts too many runs together", with("repetitions: 1000\npayloads: [{model: text, counts: [1, 2, 3]}]\nparts: [{name: a}, {name: b}]"), "", "the parts make 12000 runs"},
	} {
		_, err := ParseScale([]byte(c.spec), c.scale)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.want)
		}
	}
}

func TestMemoryLimitedNodesGetAGoMemLimit(t *testing.T) {
	base := "stacks: [rest]\npayloads: [{model: user, counts: [1]}]\nloads: [{closed: {clients: 1}}]\n"
	for _, c := range []struct {
		extra string
		want  ByteSize
		err   string
	}{
		{"memory: 400MiB\n", 400 << 20 * 9 / 10, ""},
		{"memory: 400MiB\ngomemlimit: 50%\n", 200 << 20, ""},
		{"memory: 400MiB\ngomemlimit: off\n", 0, ""},
		{"", 0, ""},
		{"gomemlimit: 90%\n", 0, "memory is not set"},
		{"memory: 400MiB\ngomemlimit: 120%\n", 0, "1% to 100%"},
		{"memory: 400MiB\ngomemlimit: 300MiB\n", 0, "a share of memory"},
	} {
		s, err := Parse([]byte(base + c.extra))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "gomemlimit") {
				t.Errorf("%q: error %v, want one naming gomemlimit and %q", c.extra, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.extra, err)
		}
		r := s.Runs()[0]
		if r.GoMemLimit != c.want {
			t.Errorf("%q: GOMEMLIMIT %d, want %d", c.extra, r.GoMemLimit, c.want)
		}
		if tc, err := r.Trial(); err != nil || tc.GoMemLimit != int64(c.want) {
			t.Errorf("%q: the case's GOMEMLIMIT %d (%v), want %d", c.extra, tc.GoMemLimit, err, c.want)
		}
	}
}

func TestTheIndependentGeneratorIsRefusedWhereItCannotDrive(t *testing.T) {
	base := "payloads: [{model: user, counts: [1]}]\ngenerators: [hopbench, independent]\n"
	ok := base + "stacks: [rest]\nloads: [{rate: {rate: 5}}]\n"
	s, err := Parse([]byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if runs := s.Runs(); len(runs) != 2 || runs[0].Generator == runs[1].Generator || strings.Contains(runs[0].Case(), "independent") == strings.Contains(runs[1].Case(), "independent") {
		t.Fatalf("want a hopbench and an independent run: %+v", runs)
	}
	for _, c := range []struct{ spec, want string }{
		{base + "stacks: [grpc]\nloads: [{rate: {rate: 5}}]\n", "stacks[0]"},
		{base + "stacks: [rest]\nloads: [{closed: {clients: 1}}]\n", "loads[0]"},
		{base + "stacks: [rest]\nloads: [{rate: {rate: 5}}]\ntls: true\n", "plain HTTP/1.1"},
		{base + "stacks: [rest]\nloads: [{rate: {rate: 5}}]\ntopologies: [chain:2]\n", "direct"},
		{base + "stacks: [rest]\nloads: [{rate: {rate: 5}}]\nconnections: [pooled, per-request]\n", "keeps one connection"},
		{"stacks: [rest]\npayloads: [{model: user, counts: [1]}]\nloads: [{rate: {rate: 5}}]\ngenerators: [ixload]\n", "want hopbench or independent"},
	} {
		if _, err := Parse([]byte(c.spec)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.spec, err, c.want)
		}
	}
}

// connections: [pooled, per-request] measures each case both ways, named
// apart; a number is that many pooled connections.
func TestConnectionsMultiplyTheMatrix(t *testing.T) {
	s, err := Parse([]byte(`
stacks: [rest, grpc]
payloads: [{model: text, counts: [10]}]
loads: [{closed: {clients: 1}}]
connections: [4, per-request]
`))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 4 {
		t.Fatalf("%d runs, want 4", len(runs))
	}
	var per, pooled int
	for _, r := range runs {
		switch {
		case r.PerRequest && r.Connections == 0 && strings.HasSuffix(r.Case(), " per-request"):
			per++
		case !r.PerRequest && r.Connections == 4 && !strings.Contains(r.Case(), "per-request"):
			pooled++
		default:
			t.Errorf("run %+v (%s)", r, r.Case())
		}
	}
	if per != 2 || pooled != 2 {
		t.Errorf("%d per-request and %d pooled runs, want 2 and 2", per, pooled)
	}
}

// A load hopbench load was given reads, in its record, as the spec would
// have written it: LoadSpecOf is config's inverse.
func TestLoadSpecOfIsTheInverseOfConfig(t *testing.T) {
	for _, c := range []load.Config{
		{Kind: load.Closed, Clients: 32},
		{Kind: load.Rate, Rate: 1500, Poisson: true, Workers: 64},
		{Kind: load.Ramp, RampOf: "clients", Steps: load.Steps{From: 1, To: 8, Step: 1, Every: 2 * time.Second}},
		{Kind: load.Capacity, SLA: 10 * time.Millisecond, Duration: 15 * time.Second,
			Search: load.Search{Percentile: 99.9, MaxErrors: 0.01, Step: time.Second, Start: 500, MaxRate: 9000}},
	} {
		back := LoadSpecOf(c).config()
		if !reflect.DeepEqual(back, c) || back.String() != c.String() {
			t.Errorf("%s came back as %s (%+v)", c.String(), back.String(), back)
		}
	}
}

// Networks are a dimension: named, as settings or as a mapping, each a
// case of its own, named in the case and kept in the run's config.
func TestNetworksAreADimension(t *testing.T) {
	s, err := Parse([]byte(`
stacks: [rest]
payloads: [{model: text, counts: [10]}]
loads: [{closed: {clients: 1}}]
networks: [loopback, lan, "delay=5ms", {delay: 2ms, bandwidth: 8mbit}]
`))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	var cases []string
	for _, r := range runs {
		cases = append(cases, r.Case())
	}
	want := []string{"rest direct echo text×10 closed:1", "rest direct echo text×10 closed:1 net:lan",
		"rest direct echo text×10 closed:1 net:delay=5ms", "rest direct echo text×10 closed:1 net:delay=2ms,bandwidth=8mbit"}
	slices.Sort(cases)
	slices.Sort(want)
	if !slices.Equal(cases, want) {
		t.Errorf("cases %q, want %q", cases, want)
	}
	for _, r := range runs {
		rec := r.Record()
		var config struct {
			Network string `json:"network"`
		}
		if err := json.Unmarshal(rec.Config, &config); err != nil {
			t.Fatal(err)
		}
		if r.Network.IsLoopback() != (config.Network == "") || !r.Network.IsLoopback() && config.Network != r.Network.String() {
			t.Errorf("%s: config names network %q", r.Case(), config.Network)
		}
	}
	one, err := Parse([]byte("stacks: [rest]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\nnetwork: wan\n"))
	if err != nil {
		t.Fatal(err)
	}
	if runs := one.Runs(); len(runs) != 1 || runs[0].Network.Name != "wan" {
		t.Errorf("network: wan gave %+v", runs)
	}
	for spec, want := range map[string]string{
		"network: lan\nnetworks: [wan]":           "give network (one) or networks (a list), not both",
		"network: moon":                           "want one of loopback, lan, region, wan",
		"network: {delay: 5}":                     "missing unit",
		"networks: [lan, lan]":                    "given twice",
		"network: {delay: 1ms, jitter: 5ms}":      "jitter 5ms: want 0 up to the delay",
		"network: {latency: 1ms}":                 `unknown setting "latency"`,
		"networks: []":                            "want a named profile",
		"network: {delay: 1ms, bandwidth: 100mb}": "want a rate such as 8mbit",
	} {
		_, err := Parse([]byte("stacks: [rest]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\n" + spec + "\n"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", spec, err, want)
		}
	}
}

// A network mode must be one of two. Kernel mode's runs are named as
// crossing the kernel's network, loopback too (that is the lab's veths,
// unshaped).
func TestNetworkModeIsChecked(t *testing.T) {
	for spec, want := range map[string]string{
		"stacks: [rest]\nnetwork_mode: netem": `network_mode: "netem": want in-process or kernel`,
	} {
		_, err := Parse([]byte(spec + "\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\nnetwork: lan\n"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", spec, err, want)
		}
	}
	s, err := Parse([]byte("stacks: [rest]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\nnetworks: [loopback, {bandwidth: 8mbit}]\nnetwork_mode: kernel\n"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, r := range s.Runs() {
		cases = append(cases, r.Case())
	}
	if !slices.Contains(cases, "rest direct echo text×10 closed:1 net:bandwidth=8mbit@kernel") || !slices.Contains(cases, "rest direct echo text×10 closed:1 net:loopback@kernel") {
		t.Errorf("cases %q: want the kernel-emulated one named so, and loopback plain", cases)
	}
}

// runtimes multiplies the matrix: each JVM case is named with the word
// jvm, records its runtime and the JVM's flags (with the memory limit it
// sizes its heap from), and Go's cases stay named as before.
func TestRuntimesAreADimension(t *testing.T) {
	s, err := Parse([]byte(`
stacks: [rest, grpc]
payloads: [{model: text, counts: [10]}]
loads: [{closed: {clients: 1}}]
runtimes: [go, jvm]
memory: 512MiB
`))
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, r := range s.Runs() {
		cases = append(cases, r.Case())
		rec := r.Record()
		var config struct {
			Runtime  string   `json:"runtime"`
			JVMFlags []string `json:"jvm_flags"`
		}
		if err := json.Unmarshal(rec.Config, &config); err != nil {
			t.Fatal(err)
		}
		onJVM := strings.HasSuffix(r.Case(), " jvm")
		if onJVM != (rec.Runtime == "jvm") || onJVM != (config.Runtime == "jvm") || onJVM != slices.Contains(config.JVMFlags, "-XX:MaxRAM=536870912") {
			t.Errorf("%s: record runtime %q, config %+v", r.Case(), rec.Runtime, config)
		}
	}
	want := []string{"grpc direct echo text×10 closed:1", "grpc direct echo text×10 closed:1 jvm", "rest direct echo text×10 closed:1", "rest direct echo text×10 closed:1 jvm"}
	slices.Sort(cases)
	if !slices.Equal(cases, want) {
		t.Errorf("cases %q, want %q", cases, want)
	}
}

// What the JVM node does not serve is refused by name, before anything
// runs, with where to put it instead.
func TestTheJVMRuntimeIsRefusedWhatItDoesNotServe(t *testing.T) {
	refused(t, map[string]string{
		"runtimes: [go, dotnet]":                                 `runtimes[1]: runtime "dotnet": want go or jvm`,
		"runtimes: [jvm]\nstacks: [rest, amqp]":                  "stacks[1]: runtime jvm: stack amqp: the JVM node serves rest",
		"runtimes: [jvm]\ntopologies: [tree:2]":                  "topologies[0]: runtime jvm: the JVM node calls one downstream node (direct and chain:N); tree:2 fans out",
		"runtimes: [jvm]\ntls: true":                             "tls: runtime jvm: the JVM node does not take tls yet; put the JVM's runs in a part of their own without it",
		"runtimes: [jvm]\nnetworks: [loopback, lan]":             "networks: runtime jvm: the JVM node does not take networks yet",
		"runtimes: [jvm]\nconnections: [per-request]":            "connections: per-request: runtime jvm",
		"runtimes: [go, jvm]\nstacks: [rest+msgpack]":            "stacks[0]: runtime jvm: stack rest+msgpack",
		"runtimes: [jvm]\ntransport_options: {amqp.prefetch: 8}": "transport_options: runtime jvm",
	})
}

// What schemas cannot be is refused by name before anything runs: an
// unknown version, a path whose length does not fit the topology or that
// meets a fan-out, and v2 where nodes or the generator speak v1 only.
func TestSchemasAreRefusedWhatTheyCannotBe(t *testing.T) {
	refused(t, map[string]string{
		"schemas: [v3]":         `schemas[0]: schema version "v3": want v1 or v2, or a path such as "v2,v1,v2"`,
		`schemas: ["v2,v1,v9"]`: `schemas[0]: schema path "v2,v1,v9": schema version "v9"`,
		`schemas: [v2, v2]`:     `schemas[1]: "v2" is listed twice`,
		`schemas: ["v2,v1,v2"]` + "\ntopologies: [chain:3]":  `schemas[0]: schema path "v2,v1,v2" names a sender and 2 nodes, and the topology has 3: give topologies [chain:2], or a path of 4 versions for chain:3`,
		`schemas: ["v2,v1,v2"]` + "\ntopologies: [tree:2]":   `fans out: use a topology of direct or chain:N, or one version`,
		`schemas: ["v2,v1,v2"]` + "\nruntimes: [go, jvm]":    "schemas: runtime jvm: the JVM node speaks v1 only",
		"schemas: [v2]\nstacks: [rest, graphql]":             "stacks[1]: schema v2: graphql decodes into v1's messages itself",
		"schemas: [v2]\ngenerators: [hopbench, independent]": "schemas: generator independent: the cross-check client sends v1's messages only",
	})
}

// A path fixes the topology when none is given, one version alone gives
// every node that version, and each is a dimension of the matrix named in
// the case; v1 everywhere by default names none.
func TestSchemasMultiplyTheMatrix(t *testing.T) {
	s, err := Parse([]byte(`
stacks: [rest, grpc]
schemas: ["v2,v1,v2", "v1,v2,v1", v2]
payloads: [{model: user, counts: [3]}]
loads: [{closed: {clients: 1}}]
order: listed
`))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 6 {
		t.Fatalf("%d runs, want 6", len(runs))
	}
	var got []string
	for _, r := range runs {
		c, err := r.Trial()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Case()+" = "+c.Schema.String())
	}
	want := []string{
		"rest chain:2 echo user×3 closed:1 schema:v2,v1,v2 = v2,v1,v2",
		"grpc chain:2 echo user×3 closed:1 schema:v2,v1,v2 = v2,v1,v2",
		"rest chain:2 echo user×3 closed:1 schema:v1,v2,v1 = v1,v2,v1",
		"grpc chain:2 echo user×3 closed:1 schema:v1,v2,v1 = v1,v2,v1",
		"rest chain:2 echo user×3 closed:1 schema:v2 = v2,v2,v2",
		"grpc chain:2 echo user×3 closed:1 schema:v2 = v2,v2,v2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("runs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r := (Run{Stack: "rest", Topology: "direct", Op: "echo"}); r.Options() != "" {
		t.Errorf("a run of no schema: options %q", r.Options())
	} else if c, err := r.Trial(); err != nil || c.Schema != nil {
		t.Errorf("a run of no schema: path %v (%v)", c.Schema, err)
	}
}

// refused parses each spec (with stacks: [rest] unless it gives stacks, a
// text payload and one client) and wants an error saying its words.
func refused(t *testing.T, specs map[string]string) {
	t.Helper()
	for spec, want := range specs {
		if !strings.Contains(spec, "stacks:") {
			spec += "\nstacks: [rest]"
		}
		_, err := Parse([]byte(spec + "\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\n"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", spec, err, want)
		}
	}
}

// Hosts and placement refuse names that are not hosts, placements that
// cannot be told apart, and what runs on hosts do not take yet.
func TestHostsAndPlacementAreRefusedWhatTheyCannotBe(t *testing.T) {
	const abc = "hosts: [{name: a}, {name: b}, {name: c}]\n"
	refused(t, map[string]string{
		"placement: {nodes: [b]}":                                 "placement: no hosts to place on",
		"hosts: [{name: a}, {name: a}]":                           `hosts[1].name: "a" is given twice`,
		"hosts: [{name: 'a b'}]":                                  `hosts[0].name: "a b": give each host a name without spaces`,
		abc + "placement: {nodes: [b, d]}":                        `placement[0].nodes: "d" is not a host; the hosts are a, b, c`,
		abc + "placement: {generator: [a, a]}":                    "placement[0].generator: a host is listed twice",
		abc + "placement: {broker: z}":                            `placement[0].broker: "z" is not a host`,
		abc + "placement: [{nodes: b}, {nodes: c}]":               "placement[0].name: \"\": several placements need a name each",
		abc + "placement: {gen: a}":                               "gen",
		abc + "tls: true":                                         "tls: runs on hosts do not take TLS between the hosts' nodes yet",
		abc + "memory: 100MiB":                                    "memory: runs on hosts do not take memory limits yet",
		abc + "network_mode: kernel\nnetwork: {bandwidth: 1mbit}": "network_mode: runs on hosts do not take kernel network emulation",
		abc + "schemas: [v2]":                                     "schemas: runs on hosts do not take schema trials yet",
		abc + "parts: [{name: x, hosts: [{name: d}]}]":            "hosts",
	})
}

func TestRunsOnHostsTakeClosedAndRateLoads(t *testing.T) {
	_, err := Parse([]byte(`
hosts: [{name: a}]
stacks: [rest]
payloads: [{model: text, counts: [10]}]
loads: [{ramp: {of: clients, from: 1, to: 4, step: 1, every: 1s}}]
`))
	if want := "loads[0]: a ramp load runs from one process"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want an error saying %q", err, want)
	}
}

// A placement is a dimension: each named one is measured, with the
// nodes spread over the hosts in turn by default.
func TestPlacementsAreADimensionOfTheMatrix(t *testing.T) {
	s, err := Parse([]byte(`
hosts: [{name: a}, {name: b}, {name: c}]
placement:
  - {name: one-host, generator: a, nodes: b}
  - {name: spread, generator: a}
stacks: [rest, grpc]
topologies: ["chain:3"]
payloads: [{model: user, counts: [10]}]
loads: [{closed: {clients: 2}}]
order: listed
`))
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 4 {
		t.Fatalf("%d runs, want 2 placements × 2 stacks", len(runs))
	}
	if p := runs[0].Placement; p.Name != "one-host" || !slices.Equal(p.Nodes, []string{"b", "b", "b"}) || p.Broker != "b" {
		t.Errorf("one-host: %+v", p)
	}
	if p := runs[2].Placement; p.Name != "spread" || !slices.Equal(p.Nodes, []string{"a", "b", "c"}) || !slices.Equal(p.Generator, []string{"a"}) {
		t.Errorf("spread: %+v", p)
	}
	if !strings.HasSuffix(runs[2].Case(), "on spread") {
		t.Errorf("the case does not name the placement: %s", runs[2].Case())
	}
}
