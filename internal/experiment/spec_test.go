package experiment

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	{"option of unknown technology", with("transport_options: {soap.version: 1.2}"), "transport_options.soap.version", "unknown stack technology"},
	{"option of an unlisted stack", with("transport_options: {kafka.acks: all}"), "transport_options.kafka.acks", "no kafka stack"},
	{"unknown option", with("stacks: [amqp]\ntransport_options: {amqp.acks: all}"), "transport_options.amqp.acks", "known: reply, prefetch"},
	{"bad option value", with("stacks: [kafka]\ntransport_options: {kafka.acks: some}"), "transport_options.kafka.acks", "all leader none"},
	{"matrix too large", with("repetitions: 1000\npayloads: [{model: text, counts: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}]"), "(top level)", "at most 10000"},
	{"jmh out of bounds", with("codecs: [json]\nruntimes: [go, jvm]\njmh: {forks: 0}"), "jmh", "forks 0: want 1 to 10"},
	{"jmh without the JVM", with("codecs: [json]\njmh: {forks: 2}"), "jmh", "times none there"},
	{"jmh unknown field", with("jmh: {fork: 2}"), "jmh.fork", "known here: forks"},
	{"jmh in a part", with("parts: [{name: a, jmh: {forks: 2}}]"), "parts[0].jmh", "experiment"},
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
	if o := s.JMH.Options(s.Seed); o.Forks != 5 || o.WarmupIterations != 3 || o.Iterations != 3 || o.Iteration != time.Second || o.Seed != 1 {
		t.Errorf("JMH's defaults: %+v", o)
	}
	s, err = Parse([]byte(with("codecs: [json]\nruntimes: [go, jvm]\njmh: {forks: 2, warmup_iterations: 0, iteration_time: 200ms}")))
	if err != nil {
		t.Fatal(err)
	}
	if o := s.JMH.Options(s.Seed); o.Forks != 2 || o.WarmupIterations != 0 || o.Iterations != 3 || o.Iteration != 200*time.Millisecond {
		t.Errorf("JMH with forks 2, no warm-up, 200ms iterations: %+v", o)
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

// The quick preset, which make run runs, covers every stack family: each
// registered technology; a protocol of the Connect family by connect,
// grpc-stream by grpc, rest-h3 (which needs TLS, which quick leaves off)
// by rest.
func TestTheQuickPresetCoversEveryStackFamily(t *testing.T) {
	s, err := ReadFile("../../presets/quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, st := range s.Stacks {
		parsed, _ := transport.ParseStack(st)
		covered[parsed.Transport] = true
	}
	family := map[string]string{"grpcweb": "connect", "connect-grpc": "connect", "grpc-stream": "grpc", "rest-h3": "rest"}
	for _, name := range transport.Names() {
		if f := cmp.Or(family[name], name); !covered[f] {
			t.Errorf("presets/quick.yaml has no %s stack (for %s)", f, name)
		}
	}
}

// rest-h3 is refused by name where QUIC cannot go: without TLS, on hosts
// of their own; in-process and kernel-emulated networks shape its packets.
func TestRestH3IsRefusedWhereQUICCannotGo(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"stacks: [rest-h3]\n", "needs TLS 1.3: set tls: true"},
		{"stacks: [rest-h3]\ntls: [false, true]\n", "needs TLS 1.3"},
		{"stacks: [rest-h3]\ntls: true\nhosts: [{name: a, agent: \"10.0.0.5:7070\"}]\n", "rest-h3 does not run on hosts of their own yet"},
	} {
		_, err := Parse([]byte(c.spec + "payloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.spec, err, c.want)
		}
	}
	if _, err := Parse([]byte("stacks: [rest-h3, rest+proto]\ntls: true\nnetworks: [loopback, lan]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\n")); err != nil {
		t.Errorf("rest-h3 with TLS on loopback and lan: %v", err)
	}
}

// A broker stack over HTTP/2 is refused before anything starts, naming
// the stack: its nodes refused to start, failing every run of the part.
func TestABrokerStackOverHTTP2IsRefused(t *testing.T) {
	for _, st := range []string{"amqp", "kafka+proto", "nats", "redis", "mqtt"} {
		_, err := Parse([]byte("stacks: [rest, " + st + "]\nhttp2: [false, true]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\n"))
		if err == nil || !strings.Contains(err.Error(), "http2 applies to HTTP stacks only") || !strings.Contains(err.Error(), st) {
			t.Errorf("%s with http2: %v, want it refused by name", st, err)
		}
	}
	if _, err := Parse([]byte("stacks: [rest, ws, grpc, graphql]\nhttp2: [false, true]\npayloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\n")); err != nil {
		t.Errorf("HTTP stacks with http2: %v", err)
	}
}

// A feed (feed:N) is refused by name where it cannot run: on stacks that
// reply with one message, fanning out, on the JVM, on hosts, with the
// independent generator, and with a length out of bounds.
func TestFeedsAreRefusedWhereTheyCannotRun(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"stacks: [amqp]\nops: [feed:10]\n", "stacks[0]: amqp replies with one message a call"},
		{"stacks: [graphql]\nops: [echo, feed:10]\n", "graphql replies with one message a call"},
		{"stacks: [rest]\nops: [feed]\n", "ops[0]: \"feed\": write feed:N"},
		{"stacks: [rest]\nops: [feed:0]\n", "from 1 to 100000"},
		{"stacks: [rest]\nops: [\"feed:100\"]\ntopologies: [tree:2]\n", "topologies[0]: \"tree:2\" fans out"},
		{"stacks: [rest]\nops: [feed:10]\nruntimes: [go, jvm]\n", "runtimes: the JVM node serves no feeds yet"},
		{"stacks: [rest]\nops: [feed:10]\nhosts: [{name: a, agent: \"10.0.0.5:7070\"}]\n", "hosts: feeds run on this machine only"},
		{"stacks: [rest]\nops: [feed:10]\ngenerators: [independent]\n", "generators: the independent generator makes unary calls only"},
	} {
		_, err := Parse([]byte(c.spec + "payloads: [{model: text, counts: [10]}]\nloads: [{closed: {clients: 1}}]\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.spec, err, c.want)
		}
	}
}

// Timing the codecs is in the estimate: in Go, 5 processes each timing
// every payload in every codec, its marshal and unmarshal a warm-up and 10
// samples of 10ms each; on the JVM, JMH's iterations of the uncompressed
// JSON and protobuf cases, two benchmarks each.
func TestCodecEstimate(t *testing.T) {
	s, err := Parse([]byte(with("payloads: [{model: text, counts: [10]}, {model: user, counts: [5]}]\nloads: [{closed: {clients: 1}}]\n" +
		"codecs: [json, proto, json+gzip]\nruntimes: [go, jvm]\njmh: {forks: 2, warmup_iterations: 1, iterations: 2, iteration_time: 100ms}")))
	if err != nil {
		t.Fatal(err)
	}
	inGo := 5 * 6 * 2 * 11 * 10 * time.Millisecond  // processes × cases × ops × (warm-up + samples) × sample time
	onJVM := 4 * 2 * 2 * 3 * 100 * time.Millisecond // cases × benchmarks × forks × iterations × iteration time
	if got := s.CodecEstimate(s.Runs()); got != inGo+onJVM {
		t.Errorf("codec timing estimated at %s; want %s in Go and %s with JMH", got, inGo, onJVM)
	}
	if s, _ = Parse([]byte(base)); s.CodecEstimate(s.Runs()) != 0 {
		t.Errorf("a spec without codecs: codec timing estimated at %s", s.CodecEstimate(s.Runs()))
	}
}
