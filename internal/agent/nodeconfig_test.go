package agent

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/cpuset"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/userschema"
	agentv1 "github.com/hopbench/hopbench/schema/hopbench/agent/v1"
)

// overTheWire is cfg as an agent reads it: converted, marshalled,
// unmarshalled and converted back.
func overTheWire(t *testing.T, cfg nodeapi.Config) (nodeapi.Config, error) {
	t.Helper()
	n, err := nodeConfigOf(cfg)
	if err != nil {
		return nodeapi.Config{}, err
	}
	b, err := proto.Marshal(n)
	if err != nil {
		t.Fatalf("%#v: nodeConfigOf let through what protobuf does not marshal: %v", cfg, err)
	}
	var back agentv1.NodeConfig
	if err := proto.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return configOf(&back), nil
}

// carried is what of cfg the agent API carries: not Announce nor Admin
// (the agent's), the user's message by its name, no empty ProtoV2, and
// empty lists and maps as none.
func carried(cfg nodeapi.Config) nodeapi.Config {
	cfg.Announce, cfg.Admin = false, ""
	if cfg.Proto != nil {
		cfg.Proto = &userschema.Source{Message: cfg.Proto.Message}
	}
	if v2 := cfg.ProtoV2; v2 != nil && len(v2.Files) == 0 && len(v2.ImportPaths) == 0 {
		cfg.ProtoV2 = nil
	}
	none := func(l *[]string) {
		if len(*l) == 0 {
			*l = nil
		}
	}
	none(&cfg.Downstream)
	none(&cfg.Gets)
	none(&cfg.JVMFlags)
	if cfg.ProtoV2 != nil {
		v2 := *cfg.ProtoV2
		none(&v2.Files)
		none(&v2.ImportPaths)
		cfg.ProtoV2 = &v2
	}
	if len(cfg.Options) == 0 {
		cfg.Options = nil
	}
	if len(cfg.CPUs) == 0 {
		cfg.CPUs = nil
	}
	return cfg
}

// Every field a coordinator sets reaches the agent as it was.
func TestANodeConfigCrossesTheAgentAPI(t *testing.T) {
	seed := uint64(0)
	cfg := nodeapi.Config{Announce: true, Listen: "amqp://127.0.0.1:5672/", Admin: "127.0.0.1:0", Downstream: []string{"10.0.0.2:7070", "10.0.0.3:7070"},
		Stack: "rest+proto", Runtime: "jvm", Seed: &seed, Schema: "v2", Options: map[string]string{"reply": "queue", "prefetch": ""},
		HTTP2: true, Cache: true, TLSDir: "/tls", MTLS: true, MaxConns: 9000, Network: "lan", CPUs: cpuset.Set{1, 3},
		Seeds: "/s.bin", Gets: []string{"user:10"}, JVMFlags: []string{"-XX:+UseZGC"},
		Proto:   &userschema.Source{Files: []string{"/p/shop.proto"}, Message: "shop.Order", Samples: "/p/s.jsonl"},
		ProtoV2: &userschema.Files{Files: []string{"/p/v2.proto"}, ImportPaths: []string{"/p"}}}
	got, err := overTheWire(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := carried(cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("across the agent API:\n%#v\nwant\n%#v", got, want)
	}
	if got.Seed == nil || *got.Seed != 0 {
		t.Errorf("seed 0 came as %v: a seed given must stay given", got.Seed)
	}
	if got, _ := overTheWire(t, nodeapi.Config{Stack: "grpc"}); got.Seed != nil || got.CPUs != nil || got.Proto != nil {
		t.Errorf("a config of a stack alone came as %#v: nothing else given", got)
	}
}

// What the agent API cannot carry is refused before it is sent, naming
// the field.
func TestANodeConfigTheAgentAPICannotCarryIsRefused(t *testing.T) {
	for _, c := range []struct {
		cfg  nodeapi.Config
		want string
	}{
		{nodeapi.Config{Extra: []string{"--max-bytes", "10"}}, "Extra:"},
		{nodeapi.Config{Proto: &userschema.Source{Files: []string{"a.proto"}}}, "Proto:"},
		{nodeapi.Config{MaxConns: math.MaxInt32 + 1}, "MaxConns:"},
		{nodeapi.Config{CPUs: cpuset.Set{math.MaxInt32 + 1}}, "CPUs:"},
		{nodeapi.Config{Stack: "rest\xff"}, "stack:"},
		{nodeapi.Config{Options: map[string]string{"a": "\xff"}}, "options:"},
		{nodeapi.Config{Downstream: []string{"\xfe"}}, "downstream:"},
	} {
		if _, err := nodeConfigOf(c.cfg); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%#v: %v, want an error naming %s", c.cfg, err, c.want)
		}
	}
}

// An agent refuses a node config that is missing, too large or one the
// node contract refuses (Validate), as an invalid argument naming the
// field, before it starts anything.
func TestAnAgentRefusesABadNodeConfigNamingTheField(t *testing.T) {
	s := &Server{Host: "h", Bin: "/nonexistent/hopbench"}
	if _, err := s.open("x"); err != nil {
		t.Fatal(err)
	}
	many := make([]string, maxConfigItems+1)
	for i := range many {
		many[i] = "10.0.0.2:7070"
	}
	for _, c := range []struct {
		config *agentv1.NodeConfig
		want   string
	}{
		{nil, "config: none"},
		{&agentv1.NodeConfig{Downstream: many}, "config.downstream: 257 items"},
		{&agentv1.NodeConfig{JvmFlags: []string{strings.Repeat("x", maxConfigBytes)}}, "in jvm_flags"},
		{&agentv1.NodeConfig{Downstream: []string{"a,b"}}, "Downstream[0]"},
		{&agentv1.NodeConfig{Options: map[string]string{"a=b": "c"}}, `Options["a=b"]`},
		{&agentv1.NodeConfig{MaxConns: -1}, "MaxConns"},
		{&agentv1.NodeConfig{Cpus: []int32{3, 1}}, "CPUs"},
		{&agentv1.NodeConfig{Network: "mars"}, "Network"},
		{&agentv1.NodeConfig{Message: "shop.Order"}, "config.message: the node serves shop.Order, which the session did not bring"},
	} {
		_, err := s.StartNode(context.Background(), &agentv1.StartNodeRequest{Session: "x", Config: c.config})
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), c.want) {
			t.Errorf("%v: %v, want an invalid argument naming %s", c.config, err, c.want)
		}
	}
}

// FuzzNodeConfigRoundTrip: whatever a coordinator's Config, the agent
// reads what the API carries of it, or it is refused before it is sent.
func FuzzNodeConfigRoundTrip(f *testing.F) {
	f.Add("amqp://127.0.0.1:5672/\x00rest+proto\x00jvm\x00v2\x00/tls\x00lan\x00/s.bin\x00shop.Order", "a:1\x00b:2\x01user:10\x01-XX:+A\x01v2.proto\x01/p\x01a\x00b", uint8(0xff), uint64(7), 9000, []byte{1, 2})
	f.Add("\xff", "\x01\x01\x01\x01\x01\x01", uint8(0), uint64(0), -1, []byte{})
	f.Fuzz(func(t *testing.T, text, lists string, bits uint8, seed uint64, maxConns int, cpus []byte) {
		cfg := fuzzedConfig(text, lists, bits, seed, maxConns, cpus)
		got, err := overTheWire(t, cfg)
		if err != nil {
			return // refused, naming the field (TestANodeConfigTheAgentAPICannotCarryIsRefused)
		}
		if want := carried(cfg); !reflect.DeepEqual(got, want) {
			t.Fatalf("across the agent API:\n%#v\nwant\n%#v", got, want)
		}
	})
}

// fuzzedConfig builds a Config from a fuzzer's inputs: text's fields
// (NUL between them) are its strings, lists' (\x01 between them) its
// lists (NUL between items) and the options (NAME NUL VALUE), bits its
// switches.
func fuzzedConfig(text, lists string, bits uint8, seed uint64, maxConns int, cpus []byte) nodeapi.Config {
	// Padded: a field or list the input leaves out is empty.
	at := append(strings.Split(text, "\x00"), make([]string, 9)...)
	listed := append(strings.Split(lists, "\x01"), make([]string, 6)...)
	items := func(i int) []string {
		if listed[i] == "" {
			return nil
		}
		return strings.Split(listed[i], "\x00")
	}
	bit := func(i int) bool { return bits&(1<<i) != 0 }
	cfg := nodeapi.Config{Announce: bit(0), Listen: at[0], Admin: at[8], Downstream: items(0), Stack: at[1], Runtime: at[2],
		Schema: at[3], HTTP2: bit(1), Cache: bit(2), TLSDir: at[4], MTLS: bit(3), MaxConns: maxConns, Network: at[5],
		Seeds: at[6], Gets: items(1), JVMFlags: items(2)}
	if bit(4) {
		cfg.Seed = &seed
	}
	if bit(5) {
		cfg.Proto = &userschema.Source{Message: at[7], Files: items(3)}
	}
	if bit(6) {
		cfg.ProtoV2 = &userschema.Files{Files: items(3), ImportPaths: items(4)}
	}
	if kv := items(5); len(kv) > 0 {
		cfg.Options = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			cfg.Options[kv[i]] = kv[i+1]
		}
	}
	for _, b := range cpus {
		cfg.CPUs = append(cfg.CPUs, int(b)-8)
	}
	if bit(7) {
		cfg.Extra = items(2)
	}
	return cfg
}
