package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
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
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all" // registers every stack
	"github.com/hopbench/hopbench/internal/userschema"
)

// nodeFlags are hopbench node's flags: the node contract's, which
// nodeapi binds, and this node's own.
type nodeFlags struct {
	contract        nodeapi.Config
	caOut           string
	tls             bool
	noIntrospection bool
	conns           transport.ConnLimits
	cfg             node.Config
	maxBytes        int
}

// nodeDefaults are the node contract's flags as the Go node takes them
// when they are not given.
func nodeDefaults() nodeapi.Config {
	seed := payload.DefaultSeed
	return nodeapi.Config{Stack: "rest", Admin: "127.0.0.1:0", Seed: &seed, Schema: string(evolution.V1), Runtime: jvm.Go,
		MaxConns: transport.DefaultMaxConns, JVMFlags: jvm.Options{}.Flags()}
}

func newNodeCommand(a *app) *cobra.Command {
	f := nodeFlags{contract: nodeDefaults()}
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
	f.contract.Bind(fl)
	fl.BoolVar(&f.tls, "tls", false, "serve TLS with a throwaway CA made at start-up")
	fl.StringVar(&f.caOut, "ca-out", "", "with --tls, write the throwaway CA certificate (PEM) to `FILE` for external clients")
	fl.IntVar(&f.maxBytes, "max-bytes", codec.DefaultMaxBytes, "largest request or reply body, in bytes")
	fl.IntVar(&f.cfg.MaxInFlight, "max-in-flight", node.DefaultMaxInFlight, "requests served at once; more are refused as unavailable")
	fl.DurationVar(&f.conns.ReadTimeout, "read-timeout", transport.DefaultReadTimeout, "HTTP-based stacks: time a request, body included, may take to arrive (a reply gets twice that to leave); gRPC: to set up a connection")
	fl.DurationVar(&f.conns.IdleTimeout, "idle-timeout", transport.DefaultIdleTimeout, "a connection idle this long is closed")
	fl.BoolVar(&f.noIntrospection, "no-introspection", false, "graphql: refuse introspection queries (the same as --option introspection=false)")
	return cmd
}

func runNode(cmd *cobra.Command, a *app, f nodeFlags) error {
	st, err := transport.ParseStack(f.contract.Stack)
	if err != nil {
		return usageError{err}
	}
	if err := jvm.CheckRuntime(f.contract.Runtime); err != nil {
		return usageError{fmt.Errorf("--runtime: %w", err)}
	}
	cpus, err := checkCPUs(f.contract.CPUs)
	if err != nil {
		return err
	}
	proto := protoOptions{src: *f.contract.Proto}
	m, err := proto.use(cmd.Context())
	if err != nil {
		return err
	}
	if err := f.useV2(cmd, m); err != nil {
		return err
	}
	if f.contract.Runtime == jvm.JVM {
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

// checkCPUs refuses --cpus that are not this machine's: nodeapi read
// the list alone. None (nil) leaves the node where the system puts it.
func checkCPUs(cpus cpuset.Set) (cpuset.Set, error) {
	if cpus == nil {
		return nil, nil
	}
	cpus, err := cpuset.Parse(cpus.String())
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
	c := f.contract
	v, err := evolution.ParseVersion(c.Schema)
	if err != nil {
		return usageError{fmt.Errorf("--schema: %w", err)}
	}
	if f.cfg.Network, err = network.Parse(c.Network); err != nil {
		return usageError{fmt.Errorf("--network: %w", err)} // nodeapi read it: cannot fail
	}
	f.cfg.Schema, f.cfg.Seed, f.cfg.Admin, f.cfg.Cache = v, *c.Seed, c.Admin, c.Cache
	useTLS := f.tls || c.MTLS || c.TLSDir != ""
	if err := f.checkTLSAndAdmin(st, useTLS); err != nil {
		return err
	}
	options := c.Options
	if f.noIntrospection {
		if st.Transport != "graphql" {
			return usageError{fmt.Errorf("--no-introspection is a graphql setting; the stack is %s", st)}
		}
		options = maps.Clone(options)
		if options == nil {
			options = map[string]string{}
		}
		options["introspection"] = "false"
	}
	f.cfg.Stack, f.cfg.Downstream, f.cfg.Listen = st, c.Downstream, c.Listen
	if f.cfg.Listen == "" {
		f.cfg.Listen = defaultAddr(st, useTLS, c.MTLS)
	}
	f.conns.MaxConns = c.MaxConns
	f.cfg.Transport = transport.Config{HTTP2: c.HTTP2, MaxBytes: f.maxBytes, Options: options, Conns: f.conns}
	if useTLS {
		return f.loadTLS()
	}
	return nil
}

// checkTLSAndAdmin refuses --announce without an admin endpoint, and TLS
// where the node could not share certificates with its peers.
func (f *nodeFlags) checkTLSAndAdmin(st transport.Stack, useTLS bool) error {
	if f.contract.Announce && f.contract.Admin == "" {
		return usageError{fmt.Errorf("--announce tells an orchestrator the node's admin endpoint: give --admin an address (127.0.0.1:0 picks a free one)")}
	}
	if tr, err := transport.Lookup(st.Transport); err == nil && transport.BrokerOf(tr) != "" && useTLS && f.contract.TLSDir == "" {
		return usageError{fmt.Errorf("a %s node connects to its broker over TLS with the broker's certificates: give --tls-dir DIR, the directory of hopbench brokers up --tls-dir DIR", st)}
	}
	if len(f.contract.Downstream) > 0 && useTLS && f.contract.TLSDir == "" {
		return usageError{fmt.Errorf("--tls with --downstream needs a CA shared with the downstream nodes: give every node the same --tls-dir DIR")}
	}
	return nil
}

// loadTLS sets the node's TLS configurations from its bundle, writing the
// CA out if --ca-out asks.
func (f *nodeFlags) loadTLS() error {
	b, err := loadBundle(f.contract.TLSDir)
	if err != nil {
		return err
	}
	f.cfg.Transport.ServerTLS, f.cfg.Transport.ClientTLS = b.Server(f.contract.MTLS), b.Client(f.contract.MTLS)
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
	if f.contract.Announce {
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
	v2 := *f.contract.ProtoV2
	if len(v2.Files) == 0 {
		return nil
	}
	if m == nil {
		return usageError{errors.New("--proto-v2 is your message's version 2: name version 1 with --proto and --message")}
	}
	pair, err := userschema.UsedPair(cmd.Context(), m.Name, v2)
	if err != nil {
		return usageError{err}
	}
	evolution.RegisterPair(pair)
	return nil
}
