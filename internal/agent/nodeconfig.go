package agent

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/userschema"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// Protocol is the version of the agent API this hopbench speaks, which a
// coordinator and an agent must share: 2 carries a node's configuration
// typed (NodeConfig), where 1 carried its flags.
const Protocol = 2

// Limits on a node's configuration: as many items in a list or map, and
// as many bytes in all, as a node's flags could have when they travelled
// as words.
const (
	maxConfigItems = 256
	maxConfigBytes = 64 << 10
)

// nodeConfigOf is cfg as the agent API carries it. Announce and Admin are
// the agent's to set, and are left out; the user's message (Proto) goes
// by its name alone, the session having brought it (Dial's messages); a
// ProtoV2 with no files is none. What the API does not carry is refused,
// naming the field: Extra (an agent's node takes the contract's flags
// only), numbers past an int32, text that is not UTF-8.
func nodeConfigOf(cfg nodeapi.Config) (*agentv1.NodeConfig, error) {
	if len(cfg.Extra) > 0 {
		return nil, fmt.Errorf("Extra: %q: an agent's node takes the contract's flags only, as Config's fields", cfg.Extra)
	}
	if cfg.Proto != nil && cfg.Proto.Message == "" {
		return nil, errors.New("Proto: names no message; the agent knows a user's message by its name")
	}
	if cfg.MaxConns > math.MaxInt32 || cfg.MaxConns < math.MinInt32 {
		return nil, fmt.Errorf("MaxConns: %d; the agent API takes an int32", cfg.MaxConns)
	}
	n := &agentv1.NodeConfig{Listen: cfg.Listen, Downstream: cfg.Downstream, Stack: cfg.Stack, Runtime: cfg.Runtime,
		Schema: cfg.Schema, Options: cfg.Options, Http2: cfg.HTTP2, Cache: cfg.Cache, TlsDir: cfg.TLSDir, Mtls: cfg.MTLS,
		MaxConns: int32(cfg.MaxConns), Network: cfg.Network, Seeds: cfg.Seeds, Gets: cfg.Gets, JvmFlags: cfg.JVMFlags}
	if cfg.Seed != nil {
		n.Seed = proto.Uint64(*cfg.Seed)
	}
	for _, cpu := range cfg.CPUs {
		if cpu > math.MaxInt32 || cpu < math.MinInt32 {
			return nil, fmt.Errorf("CPUs: %d; the agent API takes an int32", cpu)
		}
		n.Cpus = append(n.Cpus, int32(cpu))
	}
	if cfg.Proto != nil {
		n.Message = cfg.Proto.Message
	}
	if cfg.ProtoV2 != nil {
		n.ProtoV2Files, n.ProtoV2ImportPaths = cfg.ProtoV2.Files, cfg.ProtoV2.ImportPaths
	}
	if err := checkUTF8(n); err != nil {
		return nil, err
	}
	return n, nil
}

// configOf is the node configuration n carries: its user's message
// (Proto) is named only, for the agent to replace with the session's
// copy. Empty lists and maps are nil, as nodeapi.Parse gives them.
func configOf(n *agentv1.NodeConfig) nodeapi.Config {
	orNil := func(s []string) []string {
		if len(s) == 0 {
			return nil
		}
		return s
	}
	cfg := nodeapi.Config{Listen: n.Listen, Downstream: orNil(n.Downstream), Stack: n.Stack, Runtime: n.Runtime,
		Schema: n.Schema, HTTP2: n.Http2, Cache: n.Cache, TLSDir: n.TlsDir, MTLS: n.Mtls, MaxConns: int(n.MaxConns),
		Network: n.Network, Seeds: n.Seeds, Gets: orNil(n.Gets), JVMFlags: orNil(n.JvmFlags)}
	if len(n.Options) > 0 {
		cfg.Options = maps.Clone(n.Options)
	}
	if n.Seed != nil {
		cfg.Seed = proto.Uint64(*n.Seed)
	}
	for _, cpu := range n.Cpus {
		cfg.CPUs = append(cfg.CPUs, int(cpu))
	}
	if n.Message != "" {
		cfg.Proto = &userschema.Source{Message: n.Message}
	}
	if len(n.ProtoV2Files) > 0 || len(n.ProtoV2ImportPaths) > 0 {
		cfg.ProtoV2 = &userschema.Files{Files: orNil(n.ProtoV2Files), ImportPaths: orNil(n.ProtoV2ImportPaths)}
	}
	return cfg
}

// checkUTF8 refuses text protobuf's strings cannot carry, naming the
// field.
func checkUTF8(n *agentv1.NodeConfig) error {
	var bad string
	n.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		var texts []string
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				texts = append(texts, k.String(), v.String())
				return true
			})
		case fd.IsList() && fd.Kind() == protoreflect.StringKind:
			for i := range v.List().Len() {
				texts = append(texts, v.List().Get(i).String())
			}
		case fd.Kind() == protoreflect.StringKind:
			texts = []string{v.String()}
		}
		if !slices.ContainsFunc(texts, func(s string) bool { return !utf8.ValidString(s) }) {
			return true
		}
		bad = string(fd.Name())
		return false
	})
	if bad != "" {
		return fmt.Errorf("%s: text that is not UTF-8, which the agent API does not carry", bad)
	}
	return nil
}

// checkConfig bounds a node's configuration, naming the field: the items
// of each list or map, and its bytes, the largest field named.
func checkConfig(n *agentv1.NodeConfig) error {
	var err error
	size, largest, largestSize := 0, "", 0
	n.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		items := 0
		switch {
		case fd.IsMap():
			items = v.Map().Len()
		case fd.IsList():
			items = v.List().Len()
		}
		if items > maxConfigItems {
			err = status.Errorf(codes.InvalidArgument, "config.%s: %d items; at most %d", fd.Name(), items, maxConfigItems)
			return false
		}
		one := &agentv1.NodeConfig{}
		one.ProtoReflect().Set(fd, v)
		s := proto.Size(one)
		if size += s; s > largestSize {
			largest, largestSize = string(fd.Name()), s
		}
		return true
	})
	if err == nil && size > maxConfigBytes {
		err = status.Errorf(codes.InvalidArgument, "config: %d bytes, %d of them in %s; at most %d", size, largestSize, largest, maxConfigBytes)
	}
	return err
}
