package jvm_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/nodeapi"
	"github.com/hopbench/hopbench/internal/nodeapi/nodetest"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all"
)

// jar is the JVM node's build; the test skips without it unless
// HOPBENCH_REQUIRE_JVM is set (make test sets it).
func jar(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the JVM node takes seconds to start")
	}
	p, err := jvm.Jar()
	if err != nil {
		if os.Getenv("HOPBENCH_REQUIRE_JVM") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return p
}

// announce are the node contract's flags of a node serving on free ports.
var announce = nodeapi.Config{Announce: true, Listen: "127.0.0.1:0", Admin: "127.0.0.1:0"}.Args()

// startJVM starts a JVM node with the contract's flags and returns its
// address.
func startJVM(t *testing.T, args ...string) string {
	t.Helper()
	_, ready := nodetest.Start(t, slices.Concat(jvm.Command(jar(t), jvm.Options{}.Flags()), announce, args)...)
	return ready.Addr
}

func startGo(t *testing.T, st transport.Stack, downstream ...string) string {
	t.Helper()
	n, err := node.Start(context.Background(), node.Config{Stack: st, Downstream: downstream})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n.Addr()
}

func dial(t *testing.T, st transport.Stack, addr string) transport.Client {
	t.Helper()
	tr, err := transport.Lookup(st.Transport)
	if err != nil {
		t.Fatal(err)
	}
	c, err := transport.Dial(context.Background(), tr, addr, st.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A chain Go → JVM → Go echoes every model byte for byte over rest+proto
// and grpc: protobuf-java writes what protobuf-go wrote. Its gets carry
// the Go generator's data: the JVM leaf's reply, from the seeds hopbench
// wrote, is the Go leaf's, byte for byte.
func TestAChainGoJVMGoEchoesByteIdenticalPayloads(t *testing.T) {
	seeds := filepath.Join(t.TempDir(), "seeds.bin")
	var gets []jvm.Get
	for _, m := range payload.Models() {
		gets = append(gets, jvm.Get{Model: m.Name, Count: min(m.Counts[0], 100)})
	}
	if err := jvm.WriteSeeds(seeds, gets, payload.DefaultSeed); err != nil {
		t.Fatal(err)
	}
	pc, _ := codec.Lookup("proto")
	for _, stack := range []string{"rest+proto", "grpc", "rest+proto+gzip", "grpc+gzip"} {
		t.Run(stack, func(t *testing.T) {
			st, err := transport.ParseStack(stack)
			if err != nil {
				t.Fatal(err)
			}
			leaf := startGo(t, st)
			middle := startJVM(t, "--stack", stack, "--downstream", leaf, "--seeds", seeds)
			chain := dial(t, st, startGo(t, st, middle))
			goLeaf, jvmLeaf := dial(t, st, startGo(t, st)), dial(t, st, startJVM(t, "--stack", stack, "--seeds", seeds))
			z := compression(t, st)
			// rest+…+gzip carries gzipped bodies, compared once inflated:
			// Java's deflate need not write Go's bytes. gRPC compresses
			// in its own framing, under the body.
			body := func(b []byte) []byte {
				if st.Transport != "rest" || z.Name() == "none" {
					return b
				}
				out, err := z.Decompress(b, 1<<26)
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			for _, g := range gets {
				m, _ := payload.Lookup(g.Model)
				msg, _ := m.Message(g.Count, payload.DefaultSeed)
				sent, _ := pc.Marshal(msg)
				req := &transport.Request{Op: transport.OpEcho, Model: g.Model, Codec: pc, Body: sent, Compression: z}
				if st.Transport == "rest" {
					req.Body, _ = z.Compress(sent)
				}
				got, err := chain.Call(context.Background(), req)
				if err != nil || !bytes.Equal(body(got), sent) {
					t.Errorf("echo of %s×%d through Go → JVM → Go: %v; %d bytes back for %d sent", g.Model, g.Count, err, len(got), len(sent))
				}
				get := &transport.Request{Op: transport.OpGet, Model: g.Model, Count: g.Count, Codec: pc, Compression: z}
				want, err1 := goLeaf.Call(context.Background(), get)
				got, err2 := jvmLeaf.Call(context.Background(), get)
				if err1 != nil || err2 != nil || !bytes.Equal(body(got), body(want)) {
					t.Errorf("get of %s×%d: the JVM node's reply (%v, %d bytes) is not the Go node's (%v, %d bytes)", g.Model, g.Count, err2, len(got), err1, len(want))
				}
			}
		})
	}
}

func compression(t *testing.T, st transport.Stack) codec.Compression {
	z, err := codec.LookupCompression(st.Compression)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// The JVM node (jvm/node, Quarkus) honours the node contract that the Go
// node does: the same checks, pointed at its command.
func TestTheJVMNodeHonoursTheNodeContract(t *testing.T) {
	for _, stack := range []string{"rest", "rest+proto", "rest+gzip", "grpc", "grpc+gzip"} {
		t.Run(stack, func(t *testing.T) {
			nodetest.Check(t, nodeapi.Config{Stack: stack}, nodetest.Command(jvm.Command(jar(t), jvm.Options{}.Flags())...))
		})
	}
}

// A stack the JVM node does not serve is refused by name, before it
// serves anything, with exit code 2.
func TestTheJVMNodeRefusesWhatItDoesNotServe(t *testing.T) {
	argv := append(jvm.Command(jar(t), jvm.Options{}.Flags()), "--stack", "amqp", "--announce")
	var stderr strings.Builder
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || len(out) > 0 || !strings.Contains(stderr.String(), "stack amqp: the JVM node serves") {
		t.Errorf("--stack amqp: %v, stdout %q, stderr %q; want exit 2 naming the stack", err, out, stderr.String())
	}
}

// Every model's JSON, as the Go node writes it, comes back from the JVM
// node's echo as the same message: Jackson on plain classes reads and
// writes the Go node's field names, and leaves nothing out.
func TestTheJVMNodeEchoesEveryModelsJSON(t *testing.T) {
	addr := startJVM(t, "--stack", "rest")
	js, err := codec.Lookup("json")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range payload.Models() {
		count := min(m.Counts[0], 100)
		sent, err := m.Message(count, payload.DefaultSeed)
		if err != nil {
			t.Fatal(err)
		}
		body, err := js.Marshal(sent)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post("http://"+addr+"/v1/"+m.Name+"/echo", js.ContentType(), bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		back := m.New()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s×%d: %s %s", m.Name, count, resp.Status, reply)
		} else if err := js.Unmarshal(reply, back); err != nil || !proto.Equal(back, sent) {
			t.Errorf("%s×%d came back changed (%v):\nsent %s\ngot  %s", m.Name, count, err, body, reply)
		}
	}
}

// With --cache the JVM node keeps each encoded get reply, as the Go node
// does: the first get of a (model, count, encoding) is made, the next ones
// are the same bytes from the cache and are counted in cache_hits. Both
// encodings of the seeded reply read back as the Go generator's message.
func TestTheJVMNodeCachesGetReplies(t *testing.T) {
	seeds := filepath.Join(t.TempDir(), "seeds.bin")
	if err := jvm.WriteSeeds(seeds, []jvm.Get{{Model: "user", Count: 5}}, payload.DefaultSeed); err != nil {
		t.Fatal(err)
	}
	_, ready := nodetest.Start(t, slices.Concat(jvm.Command(jar(t), jvm.Options{}.Flags()), announce, []string{"--stack", "rest", "--cache", "--seeds", seeds})...)
	st, _ := transport.ParseStack("rest")
	c := dial(t, st, ready.Addr)
	m, _ := payload.Lookup("user")
	want, _ := m.Message(5, payload.DefaultSeed)
	for _, name := range []string{"json", "proto"} {
		cc, _ := codec.Lookup(name)
		var first []byte
		for i := range 3 {
			got, err := c.Call(context.Background(), &transport.Request{Op: transport.OpGet, Model: "user", Count: 5, Codec: cc, Compression: compression(t, st)})
			back := m.New()
			if err != nil || cc.Unmarshal(got, back) != nil || !proto.Equal(back, want) {
				t.Fatalf("get %d of user×5 as %s: %v; not the generator's message", i, name, err)
			}
			if i == 0 {
				first = got
			} else if !bytes.Equal(got, first) {
				t.Errorf("get %d of user×5 as %s: not the first reply's bytes", i, name)
			}
		}
	}
	s := nodetest.Stats(t, "http://"+ready.Admin)
	if s.Requests != 6 || s.CacheHits != 4 {
		t.Errorf("%d requests, %d cache hits; want 6 and 4 (the first get of each encoding is made)", s.Requests, s.CacheHits)
	}
}
