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
	"strings"

	"github.com/hopbench/hopbench/internal/stats"
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
