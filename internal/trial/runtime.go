package trial

import (
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/transport"
)

// nodeRuntime is what a run's nodes are built on, composed with where
// they live: it says what node i is told beyond what every runtime takes
// (cfg), given the run's TLS.
type nodeRuntime interface {
	node(i int, cfg nodeapi.Config, tls nodeTLS) nodeapi.Config
}

// nodeTLS is what a node is told of the run's TLS: the certificates'
// directory, and whether callers must present a certificate.
type nodeTLS struct {
	dir    string
	mutual bool
}

// runtimeOf is the runtime of c's nodes, across net, living at home.
func runtimeOf(c *Case, net netPath, home nodeHome) nodeRuntime {
	if c.JVM != nil {
		return jvmRuntime{flags: c.JVM.Flags, home: home}
	}
	return goRuntime{c: c, net: net}
}

// goRuntime is hopbench's own node: it takes every setting of the case.
type goRuntime struct {
	c   *Case
	net netPath
}

func (g goRuntime) node(i int, cfg nodeapi.Config, tls nodeTLS) nodeapi.Config {
	c := g.c
	if c.Schema != nil {
		cfg.Schema = string(c.Schema.Node(i))
	}
	cfg.Options, cfg.HTTP2, cfg.TLSDir, cfg.MTLS = c.TransportOptions, c.HTTP2, tls.dir, tls.mutual
	// A load whose clients outnumber a node's default connection cap
	// (possible once limits are raised) gets nodes that take them all,
	// and the calls between nodes besides.
	if peak := c.Load.PeakConcurrency() + 64; peak > transport.DefaultMaxConns {
		cfg.MaxConns = peak
	}
	if p := g.net.inProcess(); !p.IsLoopback() {
		cfg.Network = p.String()
	}
	return cfg
}

// jvmRuntime is the JVM node, with these JVM flags: the stack, its get
// replies (where they come from is its home's to say) and the cache; what
// else a Go node would be told, validation has refused for the JVM.
type jvmRuntime struct {
	flags []string
	home  nodeHome
}

func (j jvmRuntime) node(i int, cfg nodeapi.Config, _ nodeTLS) nodeapi.Config {
	cfg.Runtime, cfg.JVMFlags = jvm.JVM, j.flags
	return j.home.jvm(i, cfg)
}
