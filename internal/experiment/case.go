package experiment

import (
	"fmt"
	"time"

	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/topology"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/trial"
)

// Trial is the run as package trial makes it: every string of the spec
// parsed into its type, once. A validated spec's runs all parse.
func (r Run) Trial() (trial.Case, error) {
	var p parser
	c := trial.Case{
		Index: r.Index, Stack: parse(&p, "stack", transport.ParseStack, r.Stack), Topology: parse(&p, "topology", topology.Parse, r.Topology),
		Model: r.Model, Count: r.Count, Seed: r.Seed,
		Load: r.LoadConfig(), Timeout: time.Duration(r.Timeout), TransportOptions: r.TransportOptions,
		TLS: r.TLS, MTLS: r.MTLS, HTTP2: r.HTTP2, Cache: r.Cache, Connections: r.Connections, PerRequest: r.PerRequest,
		Memory: int64(r.Memory), GoMemLimit: int64(r.GoMemLimit),
		Network: r.Network, KernelNetwork: r.NetworkMode == network.Kernel,
		Proto: r.Proto, ProtoV2: r.ProtoV2, FreshBroker: r.FreshBroker, Proxy: r.Proxy,
	}
	op := parse(&p, "op", parseOp, r.Op)
	c.Op, c.Messages = op.op, op.messages
	if r.Generator == GeneratorIndependent {
		c.Generator = trial.Independent
	}
	if r.OneWay != nil {
		oc := r.OneWay.Config()
		c.OneWay = &oc
	}
	if r.OnJVM() {
		c.JVM = &trial.JVM{Flags: r.JVMFlags}
	}
	if r.Schema != "" {
		path := parse(&p, "schema", evolution.ParseSchema, r.Schema)
		c.Schema = parse(&p, "schema", path.For, c.Topology.Nodes())
	}
	if pl := r.Placement; pl != nil {
		c.Placement = &trial.Placement{Generator: pl.Generator, Nodes: pl.Nodes, Broker: pl.Broker}
	}
	return c, p.err
}

// Cases are runs as package trial makes them (Trial), in their order; the
// first run that does not parse is named in the error.
func Cases(runs []Run) ([]trial.Case, error) {
	cases := make([]trial.Case, len(runs))
	for i, r := range runs {
		c, err := r.Trial()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Case(), err)
		}
		cases[i] = c
	}
	return cases, nil
}

// opArg is an operation with its argument: a feed's length.
type opArg struct {
	op       transport.Op
	messages int
}

func parseOp(s string) (opArg, error) {
	op, n, err := transport.ParseOpArg(s)
	return opArg{op, n}, err
}

// parser keeps the first error of the parses of one run.
type parser struct{ err error }

func parse[In, Out any](p *parser, field string, f func(In) (Out, error), in In) Out {
	out, err := f(in)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("run %s: %w", field, err)
	}
	return out
}
