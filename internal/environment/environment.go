// Package environment describes the machine and build a measurement ran on,
// so that every result carries what it takes to interpret or rerun it.
package environment

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// Version is hopbench's version, set at build time by the Makefile
// (-ldflags -X); "dev" for a plain go build.
var Version = "dev"

// Library is one linked module hopbench measures through.
type Library struct {
	Name    string `json:"name"`
	Module  string `json:"module"`
	Version string `json:"version"`
}

// Environment is the build and machine a measurement ran on.
type Environment struct {
	Hopbench  string    `json:"hopbench"`
	Go        string    `json:"go"`
	OS        string    `json:"os"`
	Arch      string    `json:"arch"`
	CPU       string    `json:"cpu"`
	Cores     int       `json:"cores"`
	Kernel    string    `json:"kernel"`
	Hostname  string    `json:"hostname"`
	Libraries []Library `json:"libraries"`
	// GCPercent is the garbage collector's target (GOGC) of the process
	// that made the record, the load generator's; nil in records made
	// before it was recorded, -1 when collection was off. It changes the
	// generator's own CPU a request, not the nodes', which run in processes
	// of their own with Go's default unless GOGC is set for them.
	GCPercent *int      `json:"gc_percent,omitempty"`
	Time      time.Time `json:"time"`
}

// stackLibraries are the modules whose versions matter to a measurement, in
// the order `hopbench version` prints them. A module not linked into this
// build is left out.
var stackLibraries = []struct{ name, module string }{
	{"protobuf", "google.golang.org/protobuf"},
	{"grpc", "google.golang.org/grpc"},
	{"connect-go", "connectrpc.com/connect"},
	{"x/net (http2)", "golang.org/x/net"},
	{"gqlgen", "github.com/99designs/gqlgen"},
	{"websocket", "github.com/coder/websocket"},
	{"quic-go (http3)", "github.com/quic-go/quic-go"},
	{"amqp091-go", "github.com/rabbitmq/amqp091-go"},
	{"franz-go", "github.com/twmb/franz-go"},
	{"nats.go", "github.com/nats-io/nats.go"},
	{"nats-server", "github.com/nats-io/nats-server/v2"},
	{"go-redis", "github.com/redis/go-redis/v9"},
	{"paho.golang", "github.com/eclipse/paho.golang"},
	{"hdrhistogram-go", "github.com/HdrHistogram/hdrhistogram-go"},
	{"go-json (json-fast)", "github.com/goccy/go-json"},
	{"msgpack", "github.com/vmihailenco/msgpack/v5"},
	{"cbor", "github.com/fxamacker/cbor/v2"},
	{"avro", "github.com/hamba/avro/v2"},
	{"compress (zstd)", "github.com/klauspost/compress"},
}

// Libraries returns the versions of the stack and codec libraries linked in.
func Libraries() []Library {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	linked := map[string]string{}
	for _, d := range info.Deps {
		v := d.Version
		if d.Replace != nil {
			v = d.Replace.Version + " (replaces " + d.Version + ")"
		}
		linked[d.Path] = v
	}
	var libs []Library
	for _, l := range stackLibraries {
		if v, ok := linked[l.module]; ok {
			libs = append(libs, Library{Name: l.name, Module: l.module, Version: v})
		}
	}
	return libs
}

// Describe reads the current environment.
func Describe() Environment {
	host, _ := os.Hostname()
	return Environment{
		Hopbench:  Version,
		Go:        runtime.Version(),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		CPU:       cpuModel(),
		Cores:     runtime.NumCPU(),
		Kernel:    readTrimmed("/proc/sys/kernel/osrelease"),
		Hostname:  host,
		Libraries: Libraries(),
		GCPercent: ptr(GCPercent()),
		Time:      time.Now().UTC(),
	}
}

func ptr[T any](v T) *T { return &v }

// GCTargets says at which targets the generators of a set of records ran,
// each given by its GCPercent: "400" when all ran at one, else each
// target with its number of records ("400 in 10 records, 100 in 2
// records"), "off" for -1 and "not recorded" for records made before it
// was. It is "" when no record says.
func GCTargets(percents []*int) string {
	counts := map[string]int{}
	var order []string
	for _, p := range percents {
		name := "not recorded"
		if p != nil {
			name = strconv.Itoa(*p)
			if *p < 0 {
				name = "off"
			}
		}
		if counts[name] == 0 {
			order = append(order, name)
		}
		counts[name]++
	}
	if len(order) == 0 || len(order) == 1 && order[0] == "not recorded" {
		return ""
	}
	if len(order) == 1 {
		return order[0]
	}
	parts := make([]string, len(order))
	for i, name := range order {
		parts[i] = fmt.Sprintf("%s in %d record", name, counts[name])
		if counts[name] > 1 {
			parts[i] += "s"
		}
	}
	return strings.Join(parts, ", ")
}

// GCPercent is this process's garbage collection target, as GOGC or
// debug.SetGCPercent set it: read, not changed.
func GCPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	v := s[0].Value.Uint64()
	if v == math.MaxUint64 { // GOGC=off
		return -1
	}
	return int(v)
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func readTrimmed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
