// Package nodeapi is the contract between hopbench's orchestrator and a
// node, whatever its runtime: how a node is started, how it says it
// serves, and what its admin endpoint answers. A node in another language
// plugs in by honouring it, which nodetest checks. schema/NODE-API.md says
// the same for readers outside Go.
//
// Started with --announce (and --stack, --listen, --admin, --downstream,
// as hopbench node takes them), a node writes one Ready line, JSON, to its
// standard output once it serves, and nothing else there. Its admin
// endpoint answers:
//
//	GET  /ready  200 while it serves; 503 and why when it cannot
//	POST /reset  2xx: its figures restart from zero
//	GET  /stats  Stats as JSON
package nodeapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hopbench/hopbench/internal/cpuset"
	"github.com/hopbench/hopbench/internal/stats"
	"github.com/hopbench/hopbench/internal/userschema"
	"github.com/hopbench/hopbench/internal/wire"
)

// Version is the contract's version, carried in every Ready line.
const Version = 1

// Ready is a node's announcement that it serves.
type Ready struct {
	// Version is the contract the node speaks (Version).
	Version int `json:"hopbench_node"`
	// Stack is what it serves, e.g. rest+proto.
	Stack string `json:"stack"`
	// Addr is where callers reach it (host:port, or a broker stack's
	// scheme://broker/name); Admin its admin endpoint, host:port.
	Addr  string `json:"addr"`
	Admin string `json:"admin"`
}

// Line is r as the one line a node writes to its standard output.
func (r Ready) Line() string {
	data, _ := json.Marshal(r) // plain strings and an int: cannot fail
	return string(data) + "\n"
}

// ParseReady reads a Ready line, refusing one of another contract version
// or missing an address.
func ParseReady(line string) (Ready, error) {
	var r Ready
	dec := json.NewDecoder(strings.NewReader(line))
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("not a ready line (%q): %w", strings.TrimSpace(line), err)
	}
	switch {
	case r.Version != Version:
		return r, fmt.Errorf("node speaks contract version %d, this hopbench %d", r.Version, Version)
	case r.Addr == "" || r.Admin == "":
		return r, fmt.Errorf("ready line %q lacks its address or admin address", strings.TrimSpace(line))
	}
	return r, nil
}

// Stats is what a node reports over its admin endpoint: its figures since
// it started or was last reset.
type Stats struct {
	Stack      string           `json:"stack"`
	Addr       string           `json:"addr"`
	Downstream []string         `json:"downstream"`
	Requests   int64            `json:"requests"`
	Errors     map[string]int64 `json:"errors"`
	CacheHits  int64            `json:"cache_hits"`
	// Phases is server time per request by phase: decode, work,
	// downstream, encode and total.
	Phases map[string]stats.Summary `json:"phases_us"`
	Memory Memory                   `json:"memory"`
	// Wire is what the connections the node dialled carried since the last
	// reset: its downstream calls and, on broker stacks, all its traffic to
	// and from the broker.
	Wire *wire.Totals `json:"wire,omitempty"`
}

// Phases are the phase names, in the order a request passes them (total
// last): the keys of Stats.Phases.
var Phases = []string{"decode", "work", "downstream", "encode", "total"}

// Memory is the node runtime's view of its memory (a Go node's runtime
// figures; another runtime reports what it has).
type Memory struct {
	HeapAllocBytes  uint64 `json:"heap_alloc_bytes"`
	HeapInuseBytes  uint64 `json:"heap_inuse_bytes"`
	SysBytes        uint64 `json:"sys_bytes"`
	TotalAllocBytes uint64 `json:"total_alloc_bytes"`
	NumGC           uint32 `json:"num_gc"`
	Goroutines      int    `json:"goroutines"`
}

// Config is a node's configuration as an orchestrator gives it: the
// contract's flags, typed. Args renders it as hopbench node's flags, for
// any runtime (with Runtime jvm, hopbench node replaces itself with the
// JVM node).
type Config struct {
	// The contract's own: announce the ready line, serve on Listen (a
	// broker stack's broker URL), take admin calls on Admin, call
	// Downstream for every request.
	Announce   bool
	Listen     string
	Admin      string
	Downstream []string
	// Stack is what the node serves, e.g. rest+proto.
	Stack string
	// Runtime is what it runs on: "" for Go, or jvm.
	Runtime string
	// Seed seeds the node's get replies (nil: the node's default).
	Seed *uint64
	// Schema is the payload schema's version it speaks ("" for the
	// default, v1).
	Schema string
	// Options are the stack's own settings.
	Options map[string]string
	// HTTP2 and Cache switch HTTP/2 and the get reply cache on.
	HTTP2, Cache bool
	// TLSDir is the certificates' directory (TLS on); MTLS requires and
	// presents client certificates.
	TLSDir string
	MTLS   bool
	// MaxConns raises the node's connection cap (0: its default).
	MaxConns int
	// Network is the profile emulated on the connections it dials ("":
	// none).
	Network string
	// CPUs pins the node's process to these CPUs before it serves (none:
	// unpinned).
	CPUs cpuset.Set
	// Seeds is a JVM node's seeds file, written by the orchestrator, or
	// Gets the get replies it generates there, MODEL:COUNT; JVMFlags are
	// the JVM's own flags.
	Seeds    string
	Gets     []string
	JVMFlags []string
	// Proto is a user's message the node loads and registers before it
	// serves (nil: none); ProtoV2 its version 2, for schema trials.
	Proto   *userschema.Source
	ProtoV2 *userschema.Files
	// Extra are flags passed as given after the others (an agent's, as its
	// coordinator rendered them).
	Extra []string
}

// Args are c's flags, in a fixed order.
func (c Config) Args() []string {
	var a []string
	flag := func(on bool, name string, value ...string) {
		if on {
			a = append(append(a, "--"+name), value...)
		}
	}
	flag(c.Runtime != "", "runtime", c.Runtime)
	flag(c.Announce, "announce")
	flag(c.Listen != "", "listen", c.Listen)
	flag(c.Admin != "", "admin", c.Admin)
	flag(len(c.Downstream) > 0, "downstream", strings.Join(c.Downstream, ","))
	flag(c.Stack != "", "stack", c.Stack)
	if c.Seed != nil {
		flag(true, "seed", strconv.FormatUint(*c.Seed, 10))
	}
	flag(c.Schema != "", "schema", c.Schema)
	for _, k := range slices.Sorted(maps.Keys(c.Options)) {
		flag(true, "option", k+"="+c.Options[k])
	}
	flag(c.HTTP2, "http2")
	flag(c.Cache, "cache")
	flag(c.TLSDir != "", "tls-dir", c.TLSDir)
	flag(c.MTLS, "mtls")
	flag(c.MaxConns > 0, "max-conns", strconv.Itoa(c.MaxConns))
	flag(c.Network != "", "network", c.Network)
	flag(len(c.CPUs) > 0, "cpus", c.CPUs.String())
	flag(c.Seeds != "", "seeds", c.Seeds)
	flag(len(c.Gets) > 0, "gets", strings.Join(c.Gets, ","))
	for _, f := range c.JVMFlags {
		flag(true, "jvm-flag="+f)
	}
	a = append(a, ProtoArgs(c.Proto)...)
	if c.ProtoV2 != nil {
		a = append(a, "--proto-v2", strings.Join(c.ProtoV2.Files, ","))
		if len(c.ProtoV2.ImportPaths) > 0 {
			a = append(a, "--proto-v2-path", strings.Join(c.ProtoV2.ImportPaths, ","))
		}
	}
	return append(a, c.Extra...)
}

// ProtoArgs are the flags that name a user's message to a node or a load:
// --proto, --proto-path, --message, --proto-samples, and the fill as
// inline JSON in --proto-fill.
func ProtoArgs(src *userschema.Source) []string {
	if src == nil {
		return nil
	}
	a := []string{"--proto", strings.Join(src.Files, ",")}
	if len(src.ImportPaths) > 0 {
		a = append(a, "--proto-path", strings.Join(src.ImportPaths, ","))
	}
	a = append(a, "--message", src.Message)
	if src.Samples != "" {
		a = append(a, "--proto-samples", src.Samples)
	}
	if src.Fill != nil {
		b, err := json.Marshal(src.Fill)
		if err != nil {
			panic(err) // a Fill always marshals
		}
		a = append(a, "--proto-fill", string(b))
	}
	return a
}
