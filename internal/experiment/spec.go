// Package experiment is what hopbench runs: the YAML spec of an experiment,
// its validation, the matrix of runs it expands to, and the orchestrator
// that makes each run (nodes as child processes, load, figures, teardown).
package experiment

import (
	"cmp"
	"time"

	"github.com/hopbench/hopbench/internal/codectiming"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/load"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/oneway"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/placement"
	"github.com/hopbench/hopbench/internal/proxy"
	"github.com/hopbench/hopbench/internal/ranking"
	"github.com/hopbench/hopbench/internal/threshold"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all" // specs name every registered stack
	"github.com/hopbench/hopbench/internal/userschema"
)

// Spec is an experiment as written in YAML. Every list is a dimension of
// the matrix: the runs are every combination, repeated Repetitions times.
// Zero values take the defaults in Defaults.
type Spec struct {
	Name        string              `yaml:"name" json:"name,omitempty" jsonschema_description:"Experiment name; results go to results/<name>-<timestamp>/. Default: the spec file's name."`
	Stacks      []string            `yaml:"stacks" json:"stacks,omitempty" jsonschema:"required" jsonschema_description:"Stacks to compare: technology[+codec][+compression], e.g. rest, rest+proto+gzip, grpc, graphql."`
	Payloads    []PayloadSpec       `yaml:"payloads" json:"payloads,omitempty" jsonschema:"required" jsonschema_description:"Payload models and the item counts of each."`
	Ops         []string            `yaml:"ops" json:"ops,omitempty" jsonschema:"pattern=^(get|post|echo|feed:[1-9][0-9]{0\\,5})$" jsonschema_description:"Operations: get (reply carries the items), post (request carries them), echo (both), feed:N (server streaming: the reply is N messages, each carrying the items; N from 1 to 100000). Default: [echo]."`
	Topologies  []string            `yaml:"topologies" json:"topologies,omitempty" jsonschema_description:"direct, chain:N, tree:D or star:N. Default: [direct]."`
	Loads       []load.Model        `yaml:"loads" json:"loads,omitempty" jsonschema:"required" jsonschema_description:"Load models, each one of closed, rate, ramp or capacity."`
	Duration    Duration            `yaml:"duration" json:"duration,omitempty" jsonschema_description:"Measured time per run (default 10s; a ramp defaults to every step once)."`
	Requests    int64               `yaml:"requests" json:"requests,omitempty" jsonschema_description:"For closed loads: end each run after this many requests instead of a duration."`
	Warmup      *Duration           `yaml:"warmup" json:"warmup,omitempty" jsonschema_description:"Load before measuring, discarded (default 1s)."`
	Repetitions ranking.Repetitions `yaml:"repetitions" json:"repetitions,omitempty"`
	Alpha       float64             `yaml:"alpha" json:"alpha,omitempty" jsonschema_description:"With repetitions until decided: the significance level at which two stacks count as separated (default 0.05)."`
	SLA         Duration            `yaml:"sla" json:"sla,omitempty" jsonschema_description:"A reply later than this is an error (over_sla). Default 1s."`
	Timeout     Duration            `yaml:"timeout" json:"timeout,omitempty" jsonschema_description:"A call with no reply after this long is a timeout. Default 30s."`
	TLS         Bools               `yaml:"tls" json:"tls,omitempty" jsonschema_description:"TLS between every caller and node: false, true, or [false, true] for both."`
	MTLS        bool                `yaml:"mtls" json:"mtls,omitempty" jsonschema_description:"With TLS, require client certificates (mutual TLS)."`
	HTTP2       Bools               `yaml:"http2" json:"http2,omitempty" jsonschema_description:"HTTP/2 for HTTP-based stacks (h2c without TLS): false, true or both."`
	Cache       Bools               `yaml:"cache" json:"cache,omitempty" jsonschema_description:"Nodes reuse the encoded reply of an identical get: false, true or both."`
	Pin         string              `yaml:"pin" json:"pin,omitempty" jsonschema:"enum=none,enum=split,enum=same" jsonschema_description:"CPU pinning: none; split (generator on CPU 0, nodes on the others); same (all on CPU 0)."`
	Memory      ByteSize            `yaml:"memory" json:"memory,omitempty" jsonschema_description:"Memory limit of each node (cgroups), e.g. 400MiB; a node killed by it ends the run as out of memory."`
	Connections load.Connections    `yaml:"connections" json:"connections,omitempty" jsonschema_description:"How the generator connects to the entry node: a number of connections kept for the run and shared by its workers (default 1, also written pooled), per-request (a new connection, and with TLS a full handshake, for every call; not kafka), or a list such as [pooled, per-request] to measure both."`
	Network     network.Profiles    `yaml:"network" json:"network,omitempty" jsonschema_description:"The emulated network every hop crosses: a named profile (loopback, the default: nothing; lan: 0.1 ms one-way, 1gbit; region: 1 ms, 1gbit; wan: 20 ms, 50mbit) or settings {delay: 5ms, jitter: 100us, bandwidth: 8mbit}. delay is one-way and paid on each direction of every hop (generator to node, node to node, both legs through a broker); bandwidth caps each direction of each connection. Emulated in process at the end that dials each connection; the round trip and throughput achieved are measured before each run and recorded."`
	Networks    network.Profiles    `yaml:"networks" json:"networks,omitempty" jsonschema_description:"Several networks, each measured: a list such as [loopback, lan, wan] multiplies the matrix (each entry as in network)."`
	NetworkMode string              `yaml:"network_mode" json:"network_mode,omitempty" jsonschema:"enum=in-process,enum=kernel" jsonschema_description:"How networks are emulated: in-process (the default, no privileges: at the dialling end of every connection) or kernel (root: the generator and each node on a network namespace of its own and the brokers beside hopbench, all joined by veth pairs to a bridge, shaped with tbf, and netem for delay and jitter where the kernel has it)."`
	Proxy       proxy.List          `yaml:"proxy" json:"proxy,omitempty" jsonschema_description:"Proxies on the runs' hops, as a service mesh puts them (docs/mesh.md): none (the default), settings {kind: haproxy|nginx, mode: l4|l7, sidecars: 1|2, mtls, client, hops}, or a list of them, each measured. On every inter-service hop (hops: only those named by the node called), on the generator's call too with client: true; a broker stack's (l4 only; kafka without tls) stand in front of its broker. Real HAProxy and nginx started by hopbench on loopback, configured and logged under the results directory."`
	Runtimes    []string            `yaml:"runtimes" json:"runtimes,omitempty" jsonschema:"enum=go,enum=jvm" jsonschema_description:"The runtimes the nodes run on: go (hopbench node, the default) and jvm (jvm/node: Quarkus in JVM mode, JSON through Jackson on plain classes, Protobuf through protobuf-java; built by scripts/setup.sh jvm). [go, jvm] measures both. The JVM node serves rest (JSON or Protobuf) and grpc, each with or without gzip, the built-in models and a proto payload (DynamicMessage), direct or in chains, with or without the cache, without TLS, HTTP/2, emulated networks or stack options."`
	Schemas     []string            `yaml:"schemas" json:"schemas,omitempty" jsonschema_description:"The payload schema's versions (schema/hopbench/v1 and v2, v1 with six changes services make), each measured: v1 (the default) or v2 for the generator and every node, or a path such as \"v2,v1,v2\": the generator's version, then each node's, the entry node first, which fixes the topology (a sender and 2 nodes: chain:2). A run with a version set first sends one message of each change through its live nodes in echo and records, field by field, what came back (evolution in its record), then runs its load with the generator and nodes of those versions. Go nodes only; not graphql (it decodes into v1 itself)."`
	Seed        uint64              `yaml:"seed" json:"seed,omitempty" jsonschema_description:"Payload, Poisson and run-order seed (default 1)."`
	Order       string              `yaml:"order" json:"order,omitempty" jsonschema:"enum=shuffled,enum=listed" jsonschema_description:"Order of the runs within each repetition: shuffled (default; seeded by seed and the repetition, recorded in each run's config as order_seed) so that a case's place in time never lines up with its stack, or listed (stacks innermost, as the lists are written)."`
	GoMemLimit  string              `yaml:"gomemlimit" json:"gomemlimit,omitempty" jsonschema_description:"With memory set: the Go runtime's soft memory limit (GOMEMLIMIT) each node runs with, as a share of memory such as 90% (the default, what a Go service in a limited container sets), or off. Recorded in each run's config."`
	MaxDuration Duration            `yaml:"max_duration" json:"max_duration,omitempty" jsonschema_description:"The longest the experiment may take by hopbench's estimate: hopbench run refuses a longer one. Without it, an estimate above an hour needs hopbench run --yes."`
	Limits      *load.Limits        `yaml:"limits" json:"limits,omitempty" jsonschema_description:"Raise the bounds on loads: clients (also an open loop's workers; default 10000, at most this process's open-file limit less 256) and rate (requests/s, default 1000000). Loads beyond the bounds are refused before anything runs."`
	Generators  []string            `yaml:"generators" json:"generators,omitempty" jsonschema:"enum=hopbench,enum=independent" jsonschema_description:"What drives the entry node: hopbench (its load engine, the default) and, to check it, independent: a minimal HTTP/1.1 client over a raw connection that shares no client code with hopbench (stack rest with JSON, no TLS, no HTTP/2, an open-loop rate load). [hopbench, independent] measures both."`
	Hosts       []placement.Host    `yaml:"hosts" json:"hosts,omitempty" jsonschema_description:"Hosts of their own, each running hopbench agent: the generator, nodes and brokers are placed on them (placement) instead of on this machine. Names alone take the hosts hopbench hosts up made here. The coordinator authenticates to the agents with hopbench run --tls-dir (or --token-file). Closed and rate loads; not TLS, memory limits, pinning, kernel network mode, schema trials or the independent generator."`
	Placement   placement.List      `yaml:"placement" json:"placement,omitempty" jsonschema_description:"Where each run's parts go on the hosts: {generator: a, nodes: [b, c, b]}; or a list of named placements, each measured (a dimension of the matrix). Default: the generator on the first host, the nodes on every host in turn."`
	// Study names the published study the experiment reproduces (one in
	// reference/); its report then sets the study's findings beside what
	// was measured here.
	Study string `yaml:"study" json:"study,omitempty" jsonschema_description:"The published study this experiment reproduces: ensor, five-tech, rest-grpc or thesis. Its report then carries a paper-vs-here table of the study's findings."`
	// Codecs are also timed in-process on every payload of the runs.
	Codecs []string `yaml:"codecs" json:"codecs,omitempty" jsonschema_description:"Also time these codecs in-process (marshal, unmarshal, bytes) on every payload the runs use, written to codec.json beside the results: codec or codec+compression, e.g. [json, proto, json+gzip]."`
	// JMH is how the JVM's codecs are timed, with runtimes jvm.
	JMH *codectiming.JMH `yaml:"jmh" json:"jmh,omitempty" jsonschema_description:"How JMH times the codecs on the JVM (codecs with runtimes including jvm): forks (default 5), warmup_iterations (3), iterations (3) and iteration_time (1s). Each fork is one independent run; every timing's method states the settings."`
	// Thresholds are limits on the runs' figures, judged when they end.
	Thresholds threshold.Rules `yaml:"thresholds" json:"thresholds,omitempty"`
	// Scales and Parts are applied as the spec is read (see Parse).
	Scales map[string]Overrides `yaml:"scales" json:"scales,omitempty" jsonschema_description:"Named scales, each fields written over the spec's (and, under parts, over a named part's), chosen with hopbench run --scale NAME; without it the spec runs as written."`
	Parts  []Overrides          `yaml:"parts" json:"parts,omitempty" jsonschema_description:"Sub-experiments run one after another, each a name and the fields it writes over the top level's: an experiment whose figures each need their own matrix."`
	// Mode and OneWay make the runs one-way messaging (broker stacks).
	Mode   string        `yaml:"mode" json:"mode,omitempty" jsonschema:"enum=request,enum=oneway" jsonschema_description:"request (calls with replies, every stack; the default) or oneway (broker stacks: the generator publishes, consumers take the messages later, and every message is accounted for: lost, duplicated, out of order, end-to-end latency; docs/messaging.md). One-way runs are direct, post or echo, closed or rate loads, on this machine."`
	OneWay *oneway.Shape `yaml:"oneway" json:"oneway,omitempty" jsonschema_description:"With mode oneway: consumers (sharing each group, default 1), groups (each taking every message; default 1, more is a fan-out), drain (how long to wait for the consumers after the last publish; default the timeout) crash (drop the first consumer this long into the measured window, as a crash would) and encode (once, the default, or each: every message encoded anew)."`
	// FreshBrokers starts each run's broker anew, for the figures of a
	// broker just started (its memory at rest).
	FreshBrokers bool `yaml:"fresh_brokers" json:"fresh_brokers,omitempty" jsonschema_description:"Stop each run's broker and start it again before the run, for the figures of a broker just started (its memory at rest, docs/messaging.md). Brokers hopbench starts only: one already running (hopbench brokers up, another run) is refused; not with hosts."`
	// TransportOptions are stacks' own settings keyed technology.option.
	TransportOptions transport.StackOptions `yaml:"transport_options" json:"transport_options,omitempty" jsonschema_description:"Stacks' own settings as technology.option: value, e.g. amqp.reply: queue, amqp.prefetch: 64, amqp.persistent: true, amqp.confirm: true, kafka.acks: leader, kafka.partitions: 8. Unset options take their documented defaults; every record lists the values used."`

	// scale is the scale the spec was read at ("" for as written); part
	// the name of this part of a spec with parts; parts those parts.
	scale, part string
	parts       []*Spec
	// stacks and topologies are the lists parsed, by what the spec
	// wrote, as validation read them.
	stacks     map[string]transport.Stack
	topologies map[string]topology.Topology
}

// Run orders and generators.
const (
	OrderShuffled = "shuffled"
	OrderListed   = "listed"

	GeneratorHopbench    = "hopbench"
	GeneratorIndependent = "independent"

	// DefaultGoMemLimit is the soft limit a memory-limited node's Go
	// runtime gets: what a Go service in a container of that size sets.
	DefaultGoMemLimit = "90%"
)

// PayloadSpec is one model, or a user's message, and the counts it is
// measured at.
type PayloadSpec struct {
	Model string `yaml:"model" json:"model,omitempty" jsonschema_description:"user, payment, recipe, text, alltypes, int, ints, textfile or blob; or leave it out and give proto."`
	// Proto is a user's message: its model is named after the message.
	Proto *userschema.Source `yaml:"proto" json:"proto,omitempty" jsonschema_description:"Your own message from your .proto files instead of a model: files, import_paths, message, and fill hints or samples (docs/your-messages.md)."`
	// ProtoV2 is the message's version 2, for schema trials (schemas).
	ProtoV2 *userschema.Files `yaml:"proto_v2" json:"proto_v2,omitempty" jsonschema_description:"Version 2 of your message (files, import_paths), which schemas' paths give nodes and senders: the changes between the versions are what a run's schema trials try."`
	Counts  []int             `yaml:"counts" json:"counts,omitempty" jsonschema:"required" jsonschema_description:"Items per request or reply, e.g. characters for text, users for user, messages for proto."`
}

// Defaults fills the documented defaults into zero fields.
func (s *Spec) Defaults() {
	if len(s.Ops) == 0 {
		s.Ops = []string{"echo"}
	}
	if len(s.Topologies) == 0 {
		s.Topologies = []string{cmp.Or(s.schemaChain(), "direct")}
	}
	if s.Warmup == nil {
		w := Duration(time.Second)
		s.Warmup = &w
	}
	s.Repetitions.Defaults()
	if s.Alpha == 0 {
		s.Alpha = ranking.DefaultAlpha
	}
	if s.SLA == 0 {
		s.SLA = Duration(load.DefaultSLA)
	}
	if s.Timeout == 0 {
		s.Timeout = Duration(load.DefaultTimeout)
	}
	for _, b := range []*Bools{&s.TLS, &s.HTTP2, &s.Cache} {
		if len(*b) == 0 {
			*b = Bools{false}
		}
	}
	if s.Pin == "" {
		s.Pin = "none"
	}
	if len(s.Networks) == 0 {
		s.Networks = s.Network
	}
	if s.NetworkMode == "" {
		s.NetworkMode = network.InProcess
	}
	if len(s.Networks) == 0 {
		s.Networks = network.Profiles{{}}
	}
	if len(s.Proxy) == 0 {
		s.Proxy = proxy.List{nil}
	}
	if len(s.Connections) == 0 {
		s.Connections = load.Connections{{Pooled: 1}}
	}
	if len(s.Runtimes) == 0 {
		s.Runtimes = []string{jvm.Go}
	}
	if s.Seed == 0 {
		s.Seed = payload.DefaultSeed
	}
	if s.Order == "" {
		s.Order = OrderShuffled
	}
	if s.GoMemLimit == "" && s.Memory != 0 {
		s.GoMemLimit = DefaultGoMemLimit
	}
	if len(s.Generators) == 0 {
		s.Generators = []string{GeneratorHopbench}
	}
}

// schemaChain is the topology the spec's first schema path fixes, if it
// gives one (evolution.Path.Chain).
func (s *Spec) schemaChain() string {
	for _, sc := range s.Schemas {
		if p, err := evolution.ParseSchema(sc); err == nil && p.Chain() != "" {
			return p.Chain()
		}
	}
	return ""
}
