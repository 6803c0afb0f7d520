package nodeapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/cpuset"
	"github.com/hopbench/hopbench/internal/network"
	"github.com/hopbench/hopbench/internal/userschema"
)

// Config is a node's configuration as an orchestrator gives it: the
// contract's flags, typed. Args renders it as hopbench node's flags, for
// any runtime (with Runtime jvm, hopbench node replaces itself with the
// JVM node); Bind and Parse read them back. A field left zero (nil) is
// left out, for the node's default; an empty list or map is none.
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
	// Extra are arguments passed as given after the others: a node's own
	// flags outside the contract (hopbench node's --max-bytes, --tls...),
	// or an agent's, as its coordinator rendered them. Parse puts here, in
	// order, every argument that is neither one of the contract's flags nor
	// its value, and all from a "--" on.
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
			panic(err) // a Fill Validate passes always marshals
		}
		a = append(a, "--proto-fill", string(b))
	}
	return a
}

// Validate refuses a Config its flags cannot carry, naming the field:
// Parse(c.Args()) gives back every c it passes (an empty list or map as
// nil), and Args renders every one. Whether the stack, schema or CPUs
// exist is the node's to say.
func (c Config) Validate() error {
	if err := c.validateLists(); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(c.Options)) {
		if err := checkOption(k, c.Options[k]); err != nil {
			return fmt.Errorf("Options[%q]: %w", k, err)
		}
	}
	if c.MaxConns < 0 {
		return fmt.Errorf("MaxConns: %d; want 0 (the node's default) or more", c.MaxConns)
	}
	if _, err := network.Parse(c.Network); err != nil {
		return fmt.Errorf("Network: %w", err)
	}
	for i, cpu := range c.CPUs {
		if cpu < 0 || i > 0 && cpu <= c.CPUs[i-1] {
			return fmt.Errorf("CPUs: %v; want CPU numbers, ascending, each once", []int(c.CPUs))
		}
	}
	if c.Proto != nil && c.Proto.Fill != nil {
		if err := checkFill(*c.Proto.Fill); err != nil {
			return fmt.Errorf("Proto.Fill: %w", err)
		}
	}
	return c.validateExtra()
}

// validateLists refuses an item a list flag would not give back: pflag
// reads --downstream a,b as a line of CSV.
func (c Config) validateLists() error {
	lists := map[string][]string{"Downstream": c.Downstream, "Gets": c.Gets}
	if c.Proto != nil {
		lists["Proto.Files"], lists["Proto.ImportPaths"] = c.Proto.Files, c.Proto.ImportPaths
	}
	if c.ProtoV2 != nil {
		lists["ProtoV2.Files"], lists["ProtoV2.ImportPaths"] = c.ProtoV2.Files, c.ProtoV2.ImportPaths
	}
	for _, field := range slices.Sorted(maps.Keys(lists)) {
		for i, s := range lists[field] {
			if s == "" || strings.ContainsAny(s, ",\"\r\n") {
				return fmt.Errorf("%s[%d]: %q; want one not empty, without a comma, quote or line break: its flag reads a line of CSV", field, i, s)
			}
		}
	}
	return nil
}

// checkOption refuses an option --option NAME=VALUE would not give back:
// pflag cuts it at the first =, and reads it, if it has another, as a
// line of CSV, else less any quotes at either end.
func checkOption(name, value string) error {
	switch {
	case strings.Contains(name, "="):
		return errors.New("a name with =, where --option NAME=VALUE is cut")
	case strings.ContainsAny(name+value, "\"\r\n"):
		return errors.New("a quote or a line break, which --option would take for CSV's")
	case strings.Contains(value, "=") && strings.Contains(name+value, ","):
		return errors.New("a comma in an option with = in its value, which --option would split there")
	}
	return nil
}

// checkFill refuses what JSON, the form of --proto-fill, does not carry:
// numbers that are not finite, text that is not UTF-8.
func checkFill(f userschema.Fill) error {
	ranges := []userschema.Range{f.Strings, f.Bytes, f.Repeated, f.Maps, f.Numbers, {Min: f.Optional, Max: f.Optional}}
	for name, h := range f.Fields {
		if !utf8.ValidString(name) || !utf8.ValidString(h.Branch) {
			return fmt.Errorf("Fields[%q]: its name or branch is not UTF-8", name)
		}
		for _, r := range []*userschema.Range{h.Length, h.Size, h.Range} {
			if r != nil {
				ranges = append(ranges, *r)
			}
		}
	}
	for _, r := range ranges {
		if math.IsNaN(r.Min) || math.IsInf(r.Min, 0) || math.IsNaN(r.Max) || math.IsInf(r.Max, 0) {
			return fmt.Errorf("%v: not a finite number, which JSON does not carry", r)
		}
	}
	return nil
}

// validateExtra refuses one of the contract's flags among Extra (before a
// "--"): Parse would read it into its field.
func (c Config) validateExtra() error {
	var own Config
	fs := pflag.NewFlagSet("hopbench node", pflag.ContinueOnError)
	own.Bind(fs)
	for i, a := range c.Extra {
		if a == "--" {
			return nil
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if strings.HasPrefix(a, "--") && fs.Lookup(name) != nil {
			return fmt.Errorf("Extra[%d]: %s is the contract's --%s, which Parse reads into its field: set that", i, a, name)
		}
	}
	return nil
}
