package nodeapi

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hopbench/hopbench/internal/cpuset"
	"github.com/hopbench/hopbench/internal/userschema"
)

// Parse reads back what Args renders: every field, flag values that look
// like flags, a seed of 0, a user's message with its fill, and the flags
// of another's in Extra.
func TestParseReadsBackWhatArgsRenders(t *testing.T) {
	zero, yes := uint64(0), true
	fill := userschema.DefaultFill()
	fill.Optional, fill.Fields = 0.25, map[string]userschema.Hint{"shop.Order.note": {Length: &userschema.Range{Min: 1, Max: 3}, Set: &yes}, "shop.Order.kind": {Branch: "book"}}
	for name, c := range map[string]Config{
		"none": {},
		"every field": {Announce: true, Listen: "127.0.0.1:0", Admin: "127.0.0.1:0", Downstream: []string{"a:1", "b:2"}, Stack: "rest+proto", Runtime: "go",
			Seed: &zero, Schema: "v2", Options: map[string]string{"b": "2", "a": "1"}, HTTP2: true, Cache: true, TLSDir: "/t", MTLS: true,
			MaxConns: 9000, Network: "delay=5ms,jitter=1ms", CPUs: cpuset.Set{1, 2, 7}, Extra: []string{"--max-bytes", "10", "--tls"}},
		"a JVM node":        {Runtime: "jvm", Stack: "grpc", Seeds: "/s.bin", Gets: []string{"user:10", "text:1"}, JVMFlags: []string{"-XX:+A", "", "--stack=x"}},
		"values like flags": {Listen: "--cache", Admin: "--", Stack: "-x", Options: map[string]string{"k": "a=b", "": "", "q": "1,2"}},
		"your message": {Proto: &userschema.Source{Files: []string{"a.proto", "b.proto"}, ImportPaths: []string{"/p"}, Message: "shop.Order", Samples: "s.jsonl", Fill: &fill},
			ProtoV2: &userschema.Files{Files: []string{"v2/a.proto"}}},
		"your message, bare":        {Proto: &userschema.Source{}, ProtoV2: &userschema.Files{}},
		"all after -- is another's": {Stack: "rest", Extra: []string{"--", "--stack", "grpc", "--cache"}},
	} {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		got, err := Parse(c.Args())
		if err != nil {
			t.Errorf("%s: Parse(%q): %v", name, c.Args(), err)
		} else if !reflect.DeepEqual(got, c) {
			t.Errorf("%s: Parse(%q)\n%#v\nwant\n%#v", name, c.Args(), got, c)
		}
	}
}

// What is not the contract's, hopbench node's own flags among it, goes
// to Extra in order, a value with its flag.
func TestParseKeepsOtherFlagsInExtra(t *testing.T) {
	got, err := Parse([]string{"--tls", "--stack", "grpc", "--max-bytes", "10", "--read-timeout=1s", "--cache", "-h", "x"})
	want := Config{Stack: "grpc", Cache: true, Extra: []string{"--tls", "--max-bytes", "10", "--read-timeout=1s", "-h", "x"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, %v\nwant %#v", got, err, want)
	}
}

// Parse refuses what the node would, naming the flag.
func TestParseRefusesBadValues(t *testing.T) {
	for _, args := range [][]string{
		{"--seed", "x"}, {"--max-conns", "many"}, {"--network", "nowhere"}, {"--cpus", "1,x"}, {"--cpus", "3-1"},
		{"--proto-fill", `{"nope": 1}`}, {"--option", "novalue"}, {"--downstream", `a"b`}, {"--stack"},
	} {
		if _, err := Parse(args); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "--")) {
			t.Errorf("Parse(%q): %v, want an error naming the flag", args, err)
		}
	}
}

// Validate refuses, by field, what the flags would not give back.
func TestValidateRefusesWhatTheFlagsDoNotCarry(t *testing.T) {
	fill := userschema.DefaultFill()
	fill.Numbers.Max = math.Inf(1)
	for want, c := range map[string]Config{
		"Downstream[1]":     {Downstream: []string{"a:1", "b:2,c:3"}},
		"Gets[0]":           {Gets: []string{""}},
		"Proto.Files[0]":    {Proto: &userschema.Source{Files: []string{"a\nb"}}},
		"ProtoV2.Files[0]":  {ProtoV2: &userschema.Files{Files: []string{`"a"`}}},
		`Options["a=b"]`:    {Options: map[string]string{"a=b": "c"}},
		`Options["a"]`:      {Options: map[string]string{"a": "b=c,d"}},
		`Options["q"]`:      {Options: map[string]string{"q": `1"`}},
		"MaxConns":          {MaxConns: -1},
		"Network":           {Network: "nowhere"},
		"CPUs":              {CPUs: cpuset.Set{2, 1}},
		"Proto.Fill":        {Proto: &userschema.Source{Fill: &fill}},
		"Extra[1]: --stack": {Extra: []string{"--tls", "--stack", "grpc"}},
	} {
		if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%#v: %v, want an error about %s", c, err, want)
		}
	}
}

// Bound, c's values are the flags' defaults, which the help shows, and
// stay what the node runs with when no flag is given.
func TestBindTakesCsValuesForDefaults(t *testing.T) {
	one := uint64(1)
	c := Config{Stack: "rest", Admin: "127.0.0.1:0", Seed: &one, JVMFlags: []string{"-XX:+A"}}
	fs := pflag.NewFlagSet("node", pflag.ContinueOnError)
	c.Bind(fs)
	if err := fs.Parse([]string{"--seed", "7"}); err != nil {
		t.Fatal(err)
	}
	if c.Stack != "rest" || c.Admin != "127.0.0.1:0" || *c.Seed != 7 || len(c.JVMFlags) != 1 || c.Proto == nil {
		t.Errorf("bound and parsed: %#v", c)
	}
	for name, want := range map[string]string{"stack": "rest", "seed": "1", "jvm-flag": "[-XX:+A]", "network": "loopback", "cpus": ""} {
		if got := fs.Lookup(name).DefValue; got != want {
			t.Errorf("--%s's default shows as %q, want %q", name, got, want)
		}
	}
}

// Parse(c.Args()) is c for every c Validate passes.
func FuzzArgsRoundTrip(f *testing.F) {
	f.Add("127.0.0.1:0\x00127.0.0.1:0\x00rest+proto\x00go\x00v2\x00/t\x00lan\x00/s.bin\x00shop.Order\x00s.jsonl\x00book",
		"a:1\x00b:2\x01user:10\x01-XX:+A\x00\x01a.proto\x01/p\x01v2.proto\x01/p2\x01--max-bytes\x0010\x01a=1\x00b=x=y", uint16(0xffff), uint64(7), 9000, []byte{1, 2}, 0.5, "shop.Order.note")
	f.Add("--\x00-x\x00\x00\x00\x00\x00delay=5ms", "\x01\x01\x00\x00\x01\x01\x01\x01\x01--\x00--stack", uint16(0x0030), uint64(0), 0, []byte{}, 1.0, "")
	f.Fuzz(func(t *testing.T, text, lists string, bits uint16, seed uint64, maxConns int, cpus []byte, optional float64, hint string) {
		c := fuzzedConfig(text, lists, bits, seed, maxConns, cpus, optional, hint)
		if c.Validate() != nil {
			return
		}
		got, err := Parse(c.Args())
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.Args(), err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("Parse(%q)\n%#v\nwant\n%#v", c.Args(), got, c)
		}
	})
}

// fuzzedConfig builds a Config from a fuzzer's inputs: text's fields
// (NUL between them) are its strings, lists' (\x01 between them) its
// lists (NUL between items), bits its switches.
func fuzzedConfig(text, lists string, bits uint16, seed uint64, maxConns int, cpus []byte, optional float64, hint string) Config {
	fields, listed := strings.Split(text, "\x00"), strings.Split(lists, "\x01")
	at := func(i int) string {
		if i < len(fields) {
			return fields[i]
		}
		return ""
	}
	items := func(i int) []string {
		if i >= len(listed) || listed[i] == "" {
			return nil
		}
		return strings.Split(listed[i], "\x00")
	}
	bit := func(i int) bool { return bits&(1<<i) != 0 }
	c := Config{Announce: bit(0), Listen: at(0), Admin: at(1), Downstream: items(0), Stack: at(2), Runtime: at(3), Schema: at(4),
		HTTP2: bit(1), Cache: bit(2), TLSDir: at(5), MTLS: bit(3), MaxConns: maxConns, Network: at(6), Seeds: at(7),
		Gets: items(1), JVMFlags: items(2), Extra: items(7)}
	if bit(4) {
		c.Seed = &seed
	}
	for _, kv := range items(8) {
		k, v, _ := strings.Cut(kv, "=")
		if c.Options == nil {
			c.Options = map[string]string{}
		}
		c.Options[k] = v
	}
	cpu := -1
	for _, b := range cpus {
		cpu += 1 + int(b)
		c.CPUs = append(c.CPUs, cpu)
	}
	if bit(5) {
		c.Proto = &userschema.Source{Files: items(3), ImportPaths: items(4), Message: at(8), Samples: at(9)}
	}
	if bit(5) && bit(6) {
		fill := userschema.DefaultFill()
		fill.Optional, fill.Depth = optional, int(seed%64)
		if hint != "" {
			set := bit(8)
			fill.Fields = map[string]userschema.Hint{hint: {Branch: at(10), Size: &userschema.Range{Min: optional, Max: optional * 2}, Set: &set}}
		}
		c.Proto.Fill = &fill
	}
	if bit(7) {
		c.ProtoV2 = &userschema.Files{Files: items(5), ImportPaths: items(6)}
	}
	return c
}
