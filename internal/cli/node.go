package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/cpuset"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all" // registers every stack
	"github.com/hopbench/hopbench/internal/userschema"
)

type nodeFlags struct {
	proto                protoOptions
	v2                   userschema.Files
	stack, caOut, tlsDir string
	schema               string
	downstream           []string
	options              map[string]string
	tls, mtls, h2        bool
	noIntrospection      bool
	announce             bool
	conns                transport.ConnLimits
	cfg                  node.Config
	maxBytes             int
	runtime              string
	gets                 []string
	cpus                 string
	seeds                string
	jvmFlags             []string
}

func newNodeCommand(a *app) *cobra.Command {
	f := nodeFlags{}
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Run one service node until interrupted",
		Long: `Run one service node: for each request it decodes, performs the operation
(get, post, echo), calls its downstream nodes, re-encodes and replies.

Stacks: ` + strings.Join(transport.Names(), ", ") + `, with a codec and compression
appended, e.g. rest+proto+gzip, grpc+gzip. The API is the same on every
stack (docs/node.md). The broker stacks (amqp, kafka, nats, mqtt) serve through
a broker: start it first with hopbench brokers up.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runNode(cmd, a, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.stack, "stack", "rest", "stack: technology[+codec][+compression]")
	fl.StringVar(&f.cfg.Listen, "listen", "", "address to serve on (default 127.0.0.1:7070; for broker stacks the broker's URL and queue, topic or subject, e.g. amqp://127.0.0.1:5672/hopbench)")
	fl.StringToStringVar(&f.options, "option", nil, "a stack's own setting, `NAME=VALUE` (repeatable): amqp reply=direct|queue, prefetch, persistent, confirm; kafka acks=all|leader|none, linger, fetch_max_wait, partitions; mqtt qos=0|1|2; graphql introspection=true|false")
	fl.StringSliceVar(&f.downstream, "downstream", nil, "addresses of the nodes this one calls, in parallel, for every request")
	fl.BoolVar(&f.h2, "http2", false, "HTTP/2 for HTTP-based stacks (h2c without TLS)")
	fl.BoolVar(&f.tls, "tls", false, "serve TLS with a throwaway CA made at start-up")
	fl.BoolVar(&f.mtls, "mtls", false, "require client certificates (mutual TLS; implies --tls)")
	fl.StringVar(&f.tlsDir, "tls-dir", "", "load the CA and certificates from `DIR`, making them there first if it does not exist; nodes sharing DIR can call each other over TLS (implies --tls)")
	fl.StringVar(&f.caOut, "ca-out", "", "with --tls, write the throwaway CA certificate (PEM) to `FILE` for external clients")
	fl.BoolVar(&f.cfg.Cache, "cache", false, "reuse the encoded reply of an identical get")
	fl.IntVar(&f.maxBytes, "max-bytes", codec.DefaultMaxBytes, "largest request or reply body, in bytes")
	fl.IntVar(&f.cfg.MaxInFlight, "max-in-flight", node.DefaultMaxInFlight, "requests served at once; more are refused as unavailable")
	fl.DurationVar(&f.conns.ReadTimeout, "read-timeout", transport.DefaultReadTimeout, "HTTP-based stacks: time a request, body included, may take to arrive (a reply gets twice that to leave); gRPC: to set up a connection")
	fl.DurationVar(&f.conns.IdleTimeout, "idle-timeout", transport.DefaultIdleTimeout, "a connection idle this long is closed")
	fl.IntVar(&f.conns.MaxConns, "max-conns", transport.DefaultMaxConns, "connections open at once; more are refused (HTTP: 503)")
	fl.Var(&f.cfg.Network, "network", "emulate a network on the connections this node dials (downstream calls; a broker stack's broker): loopback, lan, region, wan, or settings such as delay=5ms,jitter=100us,bandwidth=8mbit")
	fl.BoolVar(&f.announce, "announce", false, "once serving, write the node contract's ready line (JSON) to stdout, for an orchestrator")
	fl.StringVar(&f.cfg.Admin, "admin", "127.0.0.1:0", "admin endpoint (/ready, /stats, /metrics); the default is a free port, printed at start-up; empty for none")
	fl.BoolVar(&f.noIntrospection, "no-introspection", false, "graphql: refuse introspection queries (the same as --option introspection=false)")
	fl.Uint64Var(&f.cfg.Seed, "seed", payload.DefaultSeed, "generator seed for get replies")
	fl.StringVar(&f.schema, "schema", string(evolution.V1), "the payload schema's version the node decodes into and answers in: v1, or v2 (schema/hopbench/v2: v1 with fields added, removed, renamed and widened), for mixed-version chains")
	fl.StringVar(&f.runtime, "runtime", jvm.Go, "what the node runs on: go, or jvm (jvm/node: Quarkus, Jackson, protobuf-java; rest and grpc stacks; built by scripts/setup.sh jvm); the JVM node replaces this process")
	fl.StringSliceVar(&f.gets, "gets", nil, "with --runtime jvm: the get replies the JVM node holds, generated here, `MODEL:COUNT,...` (default every model at its first standard count)")
	fl.StringVar(&f.seeds, "seeds", "", "with --runtime jvm: the get replies the JVM node holds, read from an already-written seeds `FILE` (an orchestrator's, shared by its JVM nodes) instead of generated here; not with --gets or --seed")
	fl.StringArrayVar(&f.jvmFlags, "jvm-flag", jvm.Options{}.Flags(), "with --runtime jvm: one of the JVM's own flags, e.g. -XX:MaxRAM=536870912 (repeatable); given, they replace the default ones")
	fl.StringVar(&f.cpus, "cpus", "", "pin every thread of the node to these CPUs before it serves, `LIST` of CPU numbers of this machine, e.g. 1 or 1,2,3 (a JVM node's threads inherit it); default: wherever the system runs it")
	f.proto.add(fl)
	v2Flags(fl, &f.v2)
	return cmd
}

func runNode(cmd *cobra.Command, a *app, f nodeFlags) error {
	st, err := transport.ParseStack(f.stack)
	if err != nil {
		return usageError{err}
	}
	if err := jvm.CheckRuntime(f.runtime); err != nil {
		return usageError{fmt.Errorf("--runtime: %w", err)}
	}
	cpus, err := parseCPUs(f.cpus)
	if err != nil {
		return err
	}
	m, err := f.proto.use(cmd.Context())
	if err != nil {
		return err
	}
	if err := f.useV2(cmd, m); err != nil {
		return err
	}
	if f.runtime == jvm.JVM {
		return execJVMNode(cmd, f, st, cpus, m)
	}
	if err := refuseJVMOnly(cmd); err != nil {
		return err
	}
	if err := f.configure(st); err != nil {
		return err
	}
	if err := pinNode(cpus); err != nil {
		return err
	}
	n, err := node.Start(cmd.Context(), f.cfg)
	if err != nil {
		return err
	}
	return serveNode(cmd.Context(), a, f, st, n)
}

// jvmOnlyFlags are the node flags only --runtime jvm takes.
var jvmOnlyFlags = []string{"gets", "seeds", "jvm-flag"}

// refuseJVMOnly refuses the JVM node's own flags on a Go node.
func refuseJVMOnly(cmd *cobra.Command) error {
	for _, name := range jvmOnlyFlags {
		if cmd.Flags().Changed(name) {
			return usageError{fmt.Errorf("--%s is for --runtime jvm: the Go node generates its get replies and runs no JVM", name)}
		}
	}
	return nil
}

// parseCPUs reads --cpus: none (nil) leaves the node where the system
// puts it.
func parseCPUs(list string) (cpuset.Set, error) {
	if list == "" {
		return nil, nil
	}
	cpus, err := cpuset.Parse(list)
	if err != nil {
		return nil, usageError{fmt.Errorf("--cpus: %w", err)}
	}
	return cpus, nil
}

// pinNode pins this process, every thread of it, to cpus (none: leaves it
// be), before it serves, so an orchestrator needs no taskset. The Go
// runtime then runs as many threads at once as it has CPUs, as it would
// have under taskset, which it reads at start: it would otherwise keep
// this machine's count until its own periodic check, which may come
// during the measured window (unless GOMAXPROCS says otherwise).
func pinNode(cpus cpuset.Set) error {
	if cpus == nil {
		return nil
	}
	if err := cpuset.PinProcess(cpus); err != nil {
		return fmt.Errorf("--cpus: %w", err)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(len(cpus))
	}
	return nil
}

// configure checks the flags that depend on each other and fills f.cfg
// from them, loading the TLS certificates if the node serves TLS.
func (f *nodeFlags) configure(st transport.Stack) error {
	v, err := evolution.ParseVersion(f.schema)
	if err != nil {
		return usageError{fmt.Errorf("--schema: %w", err)}
	}
	f.cfg.Schema = v
	useTLS := f.tls || f.mtls || f.tlsDir != ""
	if err := f.checkTLSAndAdmin(st, useTLS); err != nil {
		return err
	}
	if f.noIntrospection {
		if st.Transport != "graphql" {
			return usageError{fmt.Errorf("--no-introspection is a graphql setting; the stack is %s", st)}
		}
		if f.options == nil {
			f.options = map[string]string{}
		}
		f.options["introspection"] = "false"
	}
	f.cfg.Stack, f.cfg.Downstream = st, f.downstream
	if f.cfg.Listen == "" {
		f.cfg.Listen = defaultAddr(st, useTLS)
	}
	f.cfg.Transport = transport.Config{HTTP2: f.h2, MaxBytes: f.maxBytes, Options: f.options, Conns: f.conns}
	if useTLS {
		return f.loadTLS()
	}
	return nil
}

// checkTLSAndAdmin refuses --announce without an admin endpoint, and TLS
// where the node could not share certificates with its peers.
func (f *nodeFlags) checkTLSAndAdmin(st transport.Stack, useTLS bool) error {
	if f.announce && f.cfg.Admin == "" {
		return usageError{fmt.Errorf("--announce tells an orchestrator the node's admin endpoint: give --admin an address (127.0.0.1:0 picks a free one)")}
	}
	if tr, err := transport.Lookup(st.Transport); err == nil && transport.BrokerOf(tr) != "" && useTLS && f.tlsDir == "" {
		return usageError{fmt.Errorf("a %s node connects to its broker over TLS with the broker's certificates: give --tls-dir DIR, the directory of hopbench brokers up --tls-dir DIR", st)}
	}
	if len(f.downstream) > 0 && useTLS && f.tlsDir == "" {
		return usageError{fmt.Errorf("--tls with --downstream needs a CA shared with the downstream nodes: give every node the same --tls-dir DIR")}
	}
	return nil
}

// loadTLS sets the node's TLS configurations from its bundle, writing the
// CA out if --ca-out asks.
func (f *nodeFlags) loadTLS() error {
	b, err := loadBundle(f.tlsDir)
	if err != nil {
		return err
	}
	f.cfg.Transport.ServerTLS, f.cfg.Transport.ClientTLS = b.Server(f.mtls), b.Client(f.mtls)
	if f.caOut != "" {
		if err := os.WriteFile(f.caOut, b.CAPEM, 0o644); err != nil {
			return fmt.Errorf("--ca-out: %w", err)
		}
	}
	return nil
}

// serveNode says the node n serves, announces it if asked, and serves
// until ctx ends, then stops it.
func serveNode(ctx context.Context, a *app, f nodeFlags, st transport.Stack, n *node.Node) error {
	admin := ""
	if n.AdminAddr() != "" {
		admin = ", admin on http://" + n.AdminAddr()
	}
	fmt.Fprintf(a.stderr, "hopbench node: %s serving on %s%s; Ctrl-C stops it\n", st, n.Addr(), admin)
	if f.announce {
		ready := nodeapi.Ready{Version: nodeapi.Version, Stack: st.String(), Addr: n.Addr(), Admin: n.AdminAddr()}
		if _, err := io.WriteString(a.stdout, ready.Line()); err != nil {
			n.Close()
			return fmt.Errorf("announcing the node: %w", err)
		}
	}
	sayHealth(ctx, n, a.stderr)
	if err := n.Close(); err != nil {
		return fmt.Errorf("stopping the node: %w", err)
	}
	fmt.Fprintln(a.stderr, "hopbench node: stopped")
	return nil
}

// loadBundle makes a throwaway bundle, or shares one through dir.
func loadBundle(dir string) (*certs.Bundle, error) {
	if dir == "" {
		return certs.New()
	}
	return certs.LoadOrCreate(dir)
}

// sayHealth waits for ctx to end, saying whenever the node stops being
// able to serve (its broker connection dropped) or can again.
func sayHealth(ctx context.Context, n *node.Node, w io.Writer) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var was error
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		err := n.Health()
		switch {
		case err != nil && was == nil:
			fmt.Fprintf(w, "hopbench node: %v; its admin /ready answers 503 until it can serve again\n", err)
		case err == nil && was != nil:
			fmt.Fprintln(w, "hopbench node: serving again")
		}
		was = err
	}
}

// useV2 registers the versions of the user's message when --proto-v2
// names its version 2: what the node decodes into with --schema v2.
func (f *nodeFlags) useV2(cmd *cobra.Command, m *payload.Model) error {
	if len(f.v2.Files) == 0 {
		return nil
	}
	if m == nil {
		return usageError{errors.New("--proto-v2 is your message's version 2: name version 1 with --proto and --message")}
	}
	pair, err := userschema.UsedPair(cmd.Context(), m.Name, f.v2)
	if err != nil {
		return usageError{err}
	}
	evolution.RegisterPair(pair)
	return nil
}
