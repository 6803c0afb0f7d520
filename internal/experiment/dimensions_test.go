package experiment

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

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
