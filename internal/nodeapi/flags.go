package nodeapi

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/cpuset"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/userschema"
)

// Bind binds c's flags, as hopbench node takes them, to fs: c's values
// are their defaults (the node's, which its help shows), and parsing fs
// sets c. Seed, Proto and ProtoV2 are pointed somewhere first if nil, for
// their flags to go to.
func (c *Config) Bind(fs *pflag.FlagSet) {
	if c.Seed == nil {
		c.Seed = new(uint64)
	}
	if c.Proto == nil {
		c.Proto = &userschema.Source{}
	}
	if c.ProtoV2 == nil {
		c.ProtoV2 = &userschema.Files{}
	}
	fs.BoolVar(&c.Announce, "announce", c.Announce, "once serving, write the node contract's ready line (JSON) to stdout, for an orchestrator")
	fs.StringVar(&c.Listen, "listen", c.Listen, "address to serve on (default 127.0.0.1:7070; for broker stacks the broker's URL and queue, topic or subject, e.g. amqp://127.0.0.1:5672/hopbench)")
	fs.StringVar(&c.Admin, "admin", c.Admin, "admin endpoint (/ready, /stats, /metrics); the default is a free port, printed at start-up; empty for none")
	fs.StringSliceVar(&c.Downstream, "downstream", c.Downstream, "addresses of the nodes this one calls, in parallel, for every request")
	fs.StringVar(&c.Stack, "stack", c.Stack, "stack: technology[+codec][+compression]")
	fs.StringVar(&c.Runtime, "runtime", c.Runtime, "what the node runs on: go, or jvm (jvm/node: Quarkus, Jackson, protobuf-java; rest and grpc stacks; built by scripts/setup.sh jvm); the JVM node replaces this process")
	fs.Uint64Var(c.Seed, "seed", *c.Seed, "generator seed for get replies")
	fs.StringVar(&c.Schema, "schema", c.Schema, "the payload schema's version the node decodes into and answers in: v1, or v2 (schema/hopbench/v2: v1 with fields added, removed, renamed and widened), for mixed-version chains")
	fs.StringToStringVar(&c.Options, "option", c.Options, "a stack's own setting, `NAME=VALUE` (repeatable): amqp reply=direct|queue, prefetch, persistent, confirm; kafka acks=all|leader|none, linger, fetch_max_wait, partitions; mqtt qos=0|1|2; graphql introspection=true|false")
	fs.BoolVar(&c.HTTP2, "http2", c.HTTP2, "HTTP/2 for HTTP-based stacks (h2c without TLS)")
	fs.BoolVar(&c.Cache, "cache", c.Cache, "reuse the encoded reply of an identical get")
	fs.StringVar(&c.TLSDir, "tls-dir", c.TLSDir, "load the CA and certificates from `DIR`, making them there first if it does not exist; nodes sharing DIR can call each other over TLS (implies --tls)")
	fs.BoolVar(&c.MTLS, "mtls", c.MTLS, "require client certificates (mutual TLS; implies --tls)")
	fs.IntVar(&c.MaxConns, "max-conns", c.MaxConns, "connections open at once; more are refused (HTTP: 503)")
	fs.Var(networkFlag{&c.Network}, "network", "emulate a network on the connections this node dials (downstream calls; a broker stack's broker): loopback, lan, region, wan, or settings such as delay=5ms,jitter=100us,bandwidth=8mbit")
	fs.Var(cpusFlag{&c.CPUs}, "cpus", "pin every thread of the node to these CPUs before it serves, `LIST` of CPU numbers of this machine, e.g. 1 or 1,2,3 (a JVM node's threads inherit it); default: wherever the system runs it")
	fs.StringVar(&c.Seeds, "seeds", c.Seeds, "with --runtime jvm: the get replies the JVM node holds, read from an already-written seeds `FILE` (an orchestrator's, shared by its JVM nodes) instead of generated here; not with --gets or --seed")
	fs.StringSliceVar(&c.Gets, "gets", c.Gets, "with --runtime jvm: the get replies the JVM node holds, generated here, `MODEL:COUNT,...` (default every model at its first standard count)")
	fs.StringArrayVar(&c.JVMFlags, "jvm-flag", c.JVMFlags, "with --runtime jvm: one of the JVM's own flags, e.g. -XX:MaxRAM=536870912 (repeatable); given, they replace the default ones")
	BindProto(fs, c.Proto)
	BindProtoV2(fs, c.ProtoV2)
}

// BindProto binds the flags that name a user's message, as ProtoArgs
// renders them, to src: a node's, and a load's or codec's alike. The fill
// is read as the flag is: from its file, or the JSON itself.
func BindProto(fs *pflag.FlagSet, src *userschema.Source) {
	fs.StringSliceVar(&src.Files, "proto", src.Files, "your .proto `FILE`s: your message (--message) instead of the built-in models")
	fs.StringSliceVar(&src.ImportPaths, "proto-path", src.ImportPaths, "`DIR`s the .proto files and their imports are found in (default: each file's directory)")
	fs.StringVar(&src.Message, "message", src.Message, "with --proto: the message type, e.g. shop.Order; a payload of count N is a list of N of them")
	fs.StringVar(&src.Samples, "proto-samples", src.Samples, "with --proto: a `FILE` of sample messages, one a line in the proto JSON mapping, sent in turn instead of generated ones")
	fs.Var(&fillFlag{fill: &src.Fill}, "proto-fill", "with --proto: fill hints (docs/your-messages.md), a JSON `FILE` or the JSON itself, instead of the default fill")
}

// BindProtoV2 binds the flags that name version 2 of a user's message to
// v2.
func BindProtoV2(fs *pflag.FlagSet, v2 *userschema.Files) {
	fs.StringSliceVar(&v2.Files, "proto-v2", v2.Files, "the .proto `FILE`s of version 2, the message changed")
	fs.StringSliceVar(&v2.ImportPaths, "proto-v2-path", v2.ImportPaths, "`DIR`s version 2's files and imports are found in (default: each file's directory)")
}

// The flags of Proto and ProtoV2: either is given if one of its flags is.
var (
	protoFlags   = []string{"proto", "proto-path", "message", "proto-samples", "proto-fill"}
	protoV2Flags = []string{"proto-v2", "proto-v2-path"}
)

// Parse reads a node's flags, as Args renders them, into the Config an
// orchestrator would give: a flag not given leaves its field zero (nil),
// for the node's default, where Bind would have set it; a list given
// empty is nil. What is not the contract's goes to Extra (see there).
// Parse(c.Args()) is c for every c that Validate passes.
func Parse(args []string) (Config, error) {
	var c Config
	fs := pflag.NewFlagSet("hopbench node", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.Bind(fs)
	ours, others := split(fs, args)
	if err := fs.Parse(ours); err != nil {
		return Config{}, err
	}
	c.leaveOutNotGiven(fs)
	c.Extra = others
	return c, nil
}

// split parts args into the flags fs knows, with their values, and the
// others, in order: an argument that is not a flag of fs's nor the value
// of one is another's, and so is all from a "--" on.
func split(fs *pflag.FlagSet, args []string) (ours, others []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		f := fs.Lookup(name)
		switch {
		case a == "--":
			return ours, append(others, args[i:]...)
		case !strings.HasPrefix(a, "--") || f == nil:
			others = append(others, a)
		case !hasValue && f.NoOptDefVal == "" && i+1 < len(args):
			ours = append(ours, a, args[i+1])
			i++
		default:
			ours = append(ours, a)
		}
	}
	return ours, others
}

// leaveOutNotGiven sets c's fields as Args would have them: the pointers
// of flags not given nil, and lists given empty nil.
func (c *Config) leaveOutNotGiven(fs *pflag.FlagSet) {
	given := func(names ...string) bool { return slices.ContainsFunc(names, fs.Changed) }
	if !given("seed") {
		c.Seed = nil
	}
	if !given(protoFlags...) {
		c.Proto = nil
	}
	if !given(protoV2Flags...) {
		c.ProtoV2 = nil
	}
	lists := []*[]string{&c.Downstream, &c.Gets}
	if c.Proto != nil {
		lists = append(lists, &c.Proto.Files, &c.Proto.ImportPaths)
	}
	if c.ProtoV2 != nil {
		lists = append(lists, &c.ProtoV2.Files, &c.ProtoV2.ImportPaths)
	}
	for _, l := range lists {
		if len(*l) == 0 {
			*l = nil
		}
	}
}

// networkFlag reads --network into its text, as given, once network.Parse
// takes it; its default shows as the profile it names.
type networkFlag struct{ text *string }

func (f networkFlag) Set(s string) error {
	if _, err := network.Parse(s); err != nil {
		return err
	}
	*f.text = s
	return nil
}

func (f networkFlag) String() string {
	p, err := network.Parse(*f.text)
	if err != nil {
		return *f.text
	}
	return p.String()
}

func (networkFlag) Type() string { return "network" }

// cpusFlag reads --cpus: none given empty.
type cpusFlag struct{ cpus *cpuset.Set }

func (f cpusFlag) Set(list string) error {
	if list == "" {
		*f.cpus = nil
		return nil
	}
	s, err := cpuset.ParseList(list)
	if err != nil {
		return err
	}
	*f.cpus = s
	return nil
}

func (f cpusFlag) String() string { return f.cpus.String() }

func (cpusFlag) Type() string { return "string" }

// fillFlag reads --proto-fill: fill hints from a file, or from the flag
// itself when it is a JSON object; none given empty.
type fillFlag struct {
	fill **userschema.Fill
	text string
}

func (f *fillFlag) Set(arg string) error {
	if arg == "" {
		*f.fill, f.text = nil, ""
		return nil
	}
	var (
		fill userschema.Fill
		err  error
	)
	if strings.HasPrefix(strings.TrimSpace(arg), "{") {
		fill, err = userschema.ParseFill([]byte(arg), "--proto-fill")
	} else {
		fill, err = userschema.ReadFill(arg)
	}
	if err != nil {
		return err
	}
	*f.fill, f.text = &fill, arg
	return nil
}

func (f *fillFlag) String() string { return f.text }

func (*fillFlag) Type() string { return "string" }
