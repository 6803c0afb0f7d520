// Package results is the format of hopbench's raw results: one JSON record
// per run, appended to a results.jsonl file as the run ends, and read back
// by summaries, reports and comparisons. Records are versioned; a reader
// refuses a version it does not know.
package results

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/environment"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/topology"
)

// FormatVersion is the record format written; bump it on any change a
// reader of older records would misread. Version 2 added flags (a record
// of version 1 has none written: reading it sets them from its figures).
const FormatVersion = 2

// Outcomes of a run.
const (
	OutcomeOK          = "ok"            // every request succeeded within the SLA
	OutcomeErrors      = "errors"        // the run completed, some requests failed
	OutcomeOutOfMemory = "out of memory" // a node was killed by its memory limit
	OutcomeNodeDied    = "node died"     // a node exited during the run
	OutcomeBrokerDied  = "broker died"   // the stack's broker exited during the run
	OutcomeProxyDied   = "proxy died"    // a proxy on a hop exited during the run
	// OutcomeNodeUnavailable: a node said it could no longer serve (its
	// broker connection dropped) while the broker itself lived on.
	OutcomeNodeUnavailable = "node unavailable"
	OutcomeFailed          = "failed"      // the run could not be made (see reason)
	OutcomeInterrupted     = "interrupted" // stopped by the user; figures are partial
	// OutcomeCallsFailed: most calls (or all) failed, so no latency or
	// throughput figure stands for the service; the record carries none.
	OutcomeCallsFailed = "calls failed"
)

// Record is one run. The top-level identifying keys and Figures are what
// summaries group and compare on; the rest lets any figure be rebuilt.
type Record struct {
	Version    int    `json:"version"`
	Experiment string `json:"experiment"`
	// Case names the run's configuration without its repetition: records
	// with the same case are repetitions of one measurement.
	Case string `json:"case"`
	// Study is the published study the experiment reproduces, if any;
	// Scale the scale it was run at ("" as written); Part the part of the
	// spec the run belongs to, if it has parts.
	Study      string `json:"study,omitempty"`
	Scale      string `json:"scale,omitempty"`
	Part       string `json:"part,omitempty"`
	Run        int    `json:"run"`
	Repetition int    `json:"repetition"`
	Stack      string `json:"stack"`
	Topology   string `json:"topology"`
	Op         string `json:"op"`
	Model      string `json:"model"`
	Count      int    `json:"count"`
	Load       string `json:"load"`
	// Runtime is what the run's nodes ran on: empty for Go (hopbench
	// node), or jvm (jvm/node); RuntimeName names either.
	Runtime string `json:"runtime,omitempty"`
	// Schema is the payload schema's versions of the run: one for the
	// generator and every node, or a path, the generator's first and then
	// each node's ("v2,v1,v2"); empty for v1 everywhere.
	Schema string `json:"schema,omitempty"`
	// Options are the run's settings beyond the above (tls, mtls, h2,
	// cache, a request count, the jvm runtime), space-separated; empty for
	// none.
	Options string `json:"options,omitempty"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	// Flags mark figures that stand for less than a clean measurement
	// (Stands says whether any ranking may use them).
	Flags Marks `json:"flags,omitempty"`
	Figures
	// Config is the run's full configuration as the experiment expanded it.
	Config      json.RawMessage         `json:"config,omitempty"`
	Environment environment.Environment `json:"environment"`
	Pinning     string                  `json:"pinning"`
	Calibration *Calibration            `json:"calibration,omitempty"`
	// Encrypted says which legs of the run were encrypted (TLS runs only).
	Encrypted *Encryption `json:"encrypted,omitempty"`
	// Network is the emulated network the run crossed, as measured before
	// it (round trip and throughput); nil on loopback.
	Network *network.Measured `json:"network,omitempty"`
	// OthersMeasuring are the other hopbench processes that were measuring
	// on this machine as the run started or ended: they shared its CPUs.
	OthersMeasuring []string `json:"others_measuring,omitempty"`
	// Noise is what else this machine did during the measured window:
	// steal time and the lateness of this process's own timers.
	Noise *stats.Noise `json:"noise,omitempty"`
	// Warnings are what went wrong around the run without changing its
	// figures, such as its network namespaces failing to go.
	Warnings []string `json:"warnings,omitempty"`
	Nodes    []Node   `json:"nodes,omitempty"`
	Brokers  []Broker `json:"brokers,omitempty"`
	// Proxies are the proxies on the run's hops (a spec's proxy), each
	// measured like a node.
	Proxies []Proxy `json:"proxies,omitempty"`
	// Generators are the hosts the load was sent from, when the run was
	// placed on hosts of their own (each node's is in its Host); Hosts
	// are those hosts' figures over the window.
	Generators []string `json:"generators,omitempty"`
	Hosts      []Host   `json:"hosts,omitempty"`
	// Evolution is what came back of one message of each schema change
	// sent through the run's live nodes in echo before its load, field by
	// field (runs with a schema set only).
	Evolution []evolution.Trial `json:"evolution,omitempty"`
	// TransportOptions are the stack's own settings, defaults included
	// (amqp's reply mode, kafka's acks, ...).
	TransportOptions map[string]string `json:"transport_options,omitempty"`
	Started          time.Time         `json:"started"`
	Ended            time.Time         `json:"ended"`
	// Histogram, UncorrectedHistogram and FirstMessageHistogram (a
	// feed's time to its first message) are HdrHistogram V2 compressed,
	// base64 (stats.Decode reads them); latency in microseconds.
	Histogram             string   `json:"histogram,omitempty"`
	UncorrectedHistogram  string   `json:"uncorrected_histogram,omitempty"`
	FirstMessageHistogram string   `json:"first_message_histogram,omitempty"`
	Series                []Second `json:"series,omitempty"`
	Steps                 []Step   `json:"steps,omitempty"`
}

// Figures are what the load generator measured at the client.
type Figures struct {
	// OneWay is a one-way run's accounting (mode oneway only): in such a
	// run the latency is end to end and the requests are the publishes.
	OneWay        *OneWay          `json:"oneway,omitempty"`
	Requests      int64            `json:"requests"`
	Errors        int64            `json:"errors"`
	ErrorsByClass map[string]int64 `json:"errors_by_class,omitempty"`
	// RPS is replies per second, late ones included; failed calls are in
	// ErrorRPS. Like the latencies, it is absent from a record whose
	// calls failed (OutcomeCallsFailed).
	RPS      float64 `json:"rps,omitempty"`
	ErrorRPS float64 `json:"error_rps,omitempty"`
	// GoodRPS is replies within the SLA per second (goodput): what a
	// caller with that deadline got; RPS counts late replies too.
	GoodRPS  float64 `json:"good_rps"`
	ElapsedS float64 `json:"elapsed_s"`
	// NotSent counts open-loop requests due in the window that the
	// generator never sent (it fell that far behind its rate).
	NotSent int64   `json:"not_sent,omitempty"`
	MeanUs  float64 `json:"mean_us,omitempty"`
	P50Us   int64   `json:"p50_us,omitempty"`
	P90Us   int64   `json:"p90_us,omitempty"`
	P99Us   int64   `json:"p99_us,omitempty"`
	P999Us  int64   `json:"p999_us,omitempty"`
	MaxUs   int64   `json:"max_us,omitempty"`
	// Uncorrected latency, from the actual send time (open loops only).
	Uncorrected *stats.Summary `json:"uncorrected,omitempty"`
	// Lateness is the generator's own lateness in sending a request past
	// its due time (open loops only): its timers and hand-off, not a wait
	// for a worker the service kept busy, which the latency carries.
	Lateness *stats.Summary `json:"lateness,omitempty"`
	// FirstMessage is a feed's time to its first message, from the
	// intended send time as the latency is; a feed's latency (p50_us...)
	// runs to its last message. Feeds only.
	FirstMessage *stats.Summary `json:"first_message,omitempty"`
	// MessagesPerS is a feed's messages per second in its replies, late
	// ones included, as rps counts replies. Feeds only.
	MessagesPerS float64 `json:"messages_per_s,omitempty"`
	// ClientCPUUsPerReq is the generator's own CPU per request.
	ClientCPUUsPerReq float64 `json:"client_cpu_us_per_req,omitempty"`
	// RequestBodyBytes is the request body as the stack sends it: encoded,
	// and compressed where hopbench compresses (rest+gzip; gRPC compresses
	// inside its library, which only the wire bytes show). Zero for a get.
	RequestBodyBytes int `json:"request_body_bytes"`
	// RequestBodyRawBytes is the encoded body before any compression.
	RequestBodyRawBytes int `json:"request_body_raw_bytes,omitempty"`
	// ResponseBodyBytes is the last good reply's body as the generator
	// received it from the transport: encoded, and compressed where the
	// body is (rest+gzip; gRPC's own compression is undone by then).
	ResponseBodyBytes int `json:"response_body_bytes,omitempty"`
	// Wire is the client's bytes per request on its connections, TLS
	// records and HTTP/2 frames included.
	Wire *WirePerRequest `json:"wire_bytes_per_req,omitempty"`
	// CapacityRPS is a capacity search's finding: the highest rate probed
	// whose percentile met the SLA (Capacity says which, whether it is a
	// lower bound, and why the search ended; the steps are its curve).
	// For such a run rps, good_rps and the latency percentiles are those
	// of the probe at that rate; requests, errors and per-request figures
	// count every probe.
	CapacityRPS float64       `json:"capacity_rps,omitempty"`
	Capacity    *SearchResult `json:"capacity,omitempty"`
}

// WirePerRequest is bytes per request sent and received at the client.
type WirePerRequest struct {
	Sent     float64 `json:"sent"`
	Received float64 `json:"received"`
}

// Withhold drops every latency, throughput and per-request figure, which
// a run whose calls failed does not have; the counts of calls and errors
// stay.
func (f *Figures) Withhold() {
	*f = Figures{Requests: f.Requests, Errors: f.Errors, ErrorsByClass: f.ErrorsByClass, ElapsedS: f.ElapsedS, NotSent: f.NotSent,
		RequestBodyBytes: f.RequestBodyBytes, RequestBodyRawBytes: f.RequestBodyRawBytes}
}

// HasOption says whether options (a record's Options) carry the word w.
func HasOption(options, w string) bool { return slices.Contains(strings.Fields(options), w) }

// WithoutOption is options with the word w left out.
func WithoutOption(options, w string) string {
	return strings.Join(slices.DeleteFunc(strings.Fields(options), func(f string) bool { return f == w }), " ")
}

// RuntimeName is the runtime the run's nodes ran on: go or jvm.
func (r *Record) RuntimeName() string {
	if r.Runtime == "" {
		return "go"
	}
	return r.Runtime
}

// Completed reports whether the run measured to its end (its outcome is ok
// or errors): only then do its figures stand for its configuration.
func (r *Record) Completed() bool { return r.Outcome == OutcomeOK || r.Outcome == OutcomeErrors }

// Services sums the services' CPU per request and finds the largest
// service's RSS and anonymous RSS: what the topology behind the entry
// costs.
func (r *Record) Services() (cpuUsPerReq float64, largestRSS, largestAnonRSS int64) {
	for _, n := range r.Nodes {
		cpuUsPerReq += n.CPUUsPerReq
		largestRSS = max(largestRSS, n.RSSBytes)
		largestAnonRSS = max(largestAnonRSS, n.AnonRSS)
	}
	return cpuUsPerReq, largestRSS, largestAnonRSS
}

// HeapPeaks are the largest of the run's JVM nodes' heap peaks, used and
// committed, in bytes; 0 when no node recorded its heap.
func (r *Record) HeapPeaks() (used, committed int64) {
	for _, n := range r.Nodes {
		if n.Heap != nil {
			used, committed = max(used, n.Heap.UsedPeak), max(committed, n.Heap.CommittedPeak)
		}
	}
	return used, committed
}

// Node is one service's figures over the measured window.
type Node struct {
	Index int `json:"index"`
	// Host is the host the node ran on, when the run was placed on hosts;
	// PID is its process there.
	Host   string  `json:"host,omitempty"`
	PID    int     `json:"pid"`
	BootMs float64 `json:"boot_ms"` // from spawn to its first good reply
	Usage
	// Stats is the node's own report (/stats, the node contract's):
	// requests, errors, and the decode/work/downstream/encode split;
	// StatsError why it is missing.
	Stats      *nodeapi.Stats `json:"stats,omitempty"`
	StatsError string         `json:"stats_error,omitempty"`
	Exit       string         `json:"exit,omitempty"` // how it ended, if it ended early
	// Heap is a JVM node's heap over the window, from its GC log; absent
	// for Go's nodes, a JVM node on a host, and a window without a
	// collection; HeapError why a JVM node's log could not be read.
	Heap      *Heap  `json:"heap,omitempty"`
	HeapError string `json:"heap_error,omitempty"`
}

// Heap is what a JVM node's heap did over the measured window, read from
// its GC log (-Xlog:gc): the most it held, which is its used heap just
// before a collection (what the thesis calls transient memory), and the
// most it had committed, the heap reserved from the system, in bytes, with
// the pauses that reported them. Used after the window's last pause is not
// seen; a node killed by its memory limit leaves the pauses before the
// kill, so its figures are its heap up to then.
type Heap struct {
	UsedPeak      int64 `json:"used_peak_bytes"`
	CommittedPeak int64 `json:"committed_peak_bytes"`
	Pauses        int   `json:"pauses"`
}

// Usage is a process's resources over a run's measured window.
type Usage struct {
	// CPUSeconds is the process's CPU over the window; CPUUsPerReq divides
	// it by the client's requests.
	CPUSeconds  float64 `json:"cpu_seconds"`
	CPUUsPerReq float64 `json:"cpu_us_per_req"`
	RSSBytes    int64   `json:"rss_bytes"`
	PeakRSS     int64   `json:"peak_rss_bytes"`
	// AnonRSS is the anonymous part of RSSBytes at the window's end (heap,
	// stacks, runtime). RSSBytes also counts the pages of the binary it
	// runs, about 30 MiB of hopbench's that every node shares; AnonRSS is
	// what a node's stack and work hold. Absent in records made before it
	// was kept.
	AnonRSS int64 `json:"anon_rss_bytes,omitempty"`
}

// Broker is a broker a run's stack went through, measured like a node: a
// broker is part of what a broker stack costs.
type Broker struct {
	Name string `json:"name"`
	// Host is the host it ran on, when the run was placed on hosts.
	Host    string `json:"host,omitempty"`
	Addr    string `json:"addr"`
	Version string `json:"version"`
	PID     int    `json:"pid"`
	// Started is true when hopbench started it for the experiment.
	Started bool `json:"started"`
	Usage
	// Wire is what the broker's clients, the load generator and the nodes
	// together, sent to it and received from it, per request.
	Wire *WirePerRequest `json:"wire_bytes_per_req,omitempty"`
}

// ProxyOption starts the word a case's options carry for the proxies on
// its hops: proxy:haproxy/l7/x2/mtls (proxy.Settings.String).
const ProxyOption = "proxy:"

// NoProxy is ProxyOf a run without proxies.
const NoProxy = "none"

// ProxyOf is the proxies a run's options name (haproxy/l7/x2/mtls), or
// NoProxy.
func ProxyOf(options string) string { return OptionWord(options, ProxyOption, NoProxy) }

// NetOption starts the word a case's options carry for the emulated
// network it crossed: net:lan, net:wan@kernel, net:delay=5ms,bandwidth=8mbit.
const NetOption = "net:"

// NetworkOf is the network a run's options name (lan, wan@kernel), or
// loopback.
func NetworkOf(options string) string { return OptionWord(options, NetOption, "loopback") }

// OptionWord is the rest of the word of a case's options that starts
// with prefix, or none when no word does.
func OptionWord(options, prefix, none string) string {
	for _, w := range strings.Fields(options) {
		if v, ok := strings.CutPrefix(w, prefix); ok {
			return v
		}
	}
	return none
}

// ProxyTotals are a run's proxies' figures summed: how many, their CPU
// per request (µs), their RSS (bytes), and their legs' bytes per request
// (of those whose legs were read).
type ProxyTotals struct {
	N           int
	CPUUsPerReq float64
	RSSBytes    int64
	LegsBytes   float64
}

// ProxyTotals sums the run's proxies' figures.
func (r *Record) ProxyTotals() ProxyTotals {
	t := ProxyTotals{N: len(r.Proxies)}
	for _, p := range r.Proxies {
		t.CPUUsPerReq, t.RSSBytes = t.CPUUsPerReq+p.CPUUsPerReq, t.RSSBytes+p.RSSBytes
		if p.Legs != nil {
			t.LegsBytes += p.Legs.Sent + p.Legs.Received
		}
	}
	return t
}

// ProxiedHops is how many hops the run's proxies stood on: its proxies
// over their sidecars a hop (haproxy/l7/x2: two a hop), or, for a broker
// stack's, in front of its broker, every call of the run (one a node: each
// is called once, through the broker). 0 for a run without proxies.
func (r *Record) ProxiedHops() int {
	if slices.ContainsFunc(r.Proxies, Proxy.InFrontOfBroker) {
		if t, err := topology.Parse(r.Topology); err == nil {
			return t.Nodes()
		}
	}
	return len(r.Proxies) / sidecarsOf(ProxyOf(r.Options))
}

// sidecarsOf reads xN from a proxy's name (haproxy/l7/x2): its proxies a
// hop.
func sidecarsOf(p string) int {
	for _, part := range strings.Split(p, "/") {
		if n, err := strconv.Atoi(strings.TrimPrefix(part, "x")); err == nil && strings.HasPrefix(part, "x") && n > 0 {
			return n
		}
	}
	return 1
}

// BrokerHop names the hop of a broker stack's proxies, in front of its
// broker: every call of the run crosses them.
const BrokerHop = "→broker"

// InFrontOfBroker says the proxy stands in front of a broker.
func (p Proxy) InFrontOfBroker() bool { return strings.HasPrefix(p.Role, "hop "+BrokerHop) }

// Proxy is one proxy on a run's hop, measured like a node: its CPU and
// memory over the window, and the bytes on its legs.
type Proxy struct {
	// Role names it: "hop 0→1 outbound", "hop client→0", "hop →broker".
	Role     string `json:"role"`
	Kind     string `json:"kind"`
	Mode     string `json:"mode"`
	PID      int    `json:"pid"`
	Listen   string `json:"listen"`
	Upstream string `json:"upstream"`
	// TLS says which of its legs carried TLS: "accept" (an inbound
	// sidecar's listener) or "originate" (an outbound's upstream).
	TLS string `json:"tls,omitempty"`
	Usage
	// Legs are the bytes its TCP connections, both legs together, sent
	// and received over the window per request (the kernel's tcp_info:
	// TLS records and framing included, TCP/IP headers not); nil when
	// they could not be read. Connections that closed within the window
	// are not in it.
	Legs *WirePerRequest `json:"legs_bytes_per_req,omitempty"`
	// Exit is how it ended, when it exited during the run.
	Exit string `json:"exit,omitempty"`
}

// Encryption is which connections of a run carried TLS, and whether
// client certificates were presented too.
type Encryption struct {
	// Legs are the connections, e.g. generator→node and node→node, or
	// generator↔broker and nodes↔broker for a broker stack.
	Legs   []string `json:"legs"`
	Mutual bool     `json:"mutual,omitempty"`
}

// Calibration is the machine's floor, measured before the runs.
type Calibration struct {
	TCPRoundTripUs  float64 `json:"tcp_round_trip_us"`  // median, 1 in flight, loopback
	HTTPRoundTripUs float64 `json:"http_round_trip_us"` // median, minimal net/http server, keep-alive
	// GeneratorCPUUsPerReq is the load engine's own CPU per request,
	// measured against a call that does nothing.
	GeneratorCPUUsPerReq float64 `json:"generator_cpu_us_per_req"`
	Samples              int     `json:"samples"`
	// NoiseSpread is the machine's noise before the runs: the spread,
	// (max − min) / median, of a fixed workload's median over 5 batches
	// (calibrate.Noise). NoiseAfterFile keeps the same after them.
	NoiseSpread float64 `json:"noise_spread,omitempty"`
}

// NoiseAfterFile, beside a results file, is the machine's noise measured
// again after an experiment's runs: {"noise_spread": 0.04}.
const NoiseAfterFile = "noise-after.json"

// Host is one host's figures over a run's measured window, as its agent
// read them.
type Host struct {
	Name  string `json:"name"`
	Agent string `json:"agent"`
	// Roles say what the run put there: generator, node 0, ...
	Roles []string `json:"roles"`
	// CPUSeconds is the CPU of what the run had there: the agent (which
	// sends a load share) and the run's nodes and broker on the host;
	// CPUUsPerReq divides it by the run's requests.
	CPUSeconds  float64 `json:"cpu_seconds"`
	CPUUsPerReq float64 `json:"cpu_us_per_req"`
	// MachineCPUSeconds is every process's CPU on the host's machine
	// (/proc/stat); hosts that are namespaces of one machine share it.
	MachineCPUSeconds float64 `json:"machine_cpu_seconds"`
	// NetRxBytes and NetTxBytes are what the host's interfaces (but
	// loopback) received and sent; per request in NetPerReq.
	NetRxBytes int64           `json:"net_rx_bytes"`
	NetTxBytes int64           `json:"net_tx_bytes"`
	NetPerReq  *WirePerRequest `json:"net_per_req,omitempty"`
	// Generator is the load share sent from the host, if any: its
	// requests and p50, measured there.
	GeneratorRequests int64 `json:"generator_requests,omitempty"`
	GeneratorP50Us    int64 `json:"generator_p50_us,omitempty"`
	// UsageError says why the host's figures are missing, when its agent
	// could not read them.
	UsageError string `json:"usage_error,omitempty"`
}

// GCTargets says at which garbage-collection targets the generators of
// recs ran (environment.GCTargets): "" when no record says.
func GCTargets(recs []Record) string {
	percents := make([]*int, len(recs))
	for i, r := range recs {
		percents[i] = r.Environment.GCPercent
	}
	return environment.GCTargets(percents)
}
