package jvm_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/jvm"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// useOrders registers examples/proto's shop.Order (nested messages,
// repeated, maps, oneof, enums, bytes, fixed64, Timestamp and Duration,
// across imported files) and writes what a JVM node serves it from: the
// descriptor set and the seeds of its get of count items.
func useOrders(t *testing.T, count int) (payload.Model, []string) {
	t.Helper()
	dir := filepath.Join("..", "..", "examples", "proto")
	m, err := userschema.Use(context.Background(), userschema.Source{
		Files: []string{filepath.Join(dir, "shop", "orders.proto")}, ImportPaths: []string{dir}, Message: "shop.Order",
	})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := userschema.Used(m.Name)
	tmp := t.TempDir()
	desc, seeds := filepath.Join(tmp, "orders.descriptors"), filepath.Join(tmp, "seeds.bin")
	if err := jvm.WriteDescriptors(desc, p); err != nil {
		t.Fatal(err)
	}
	if err := jvm.WriteSeeds(seeds, []jvm.Get{{Model: m.Name, Count: count}}, payload.DefaultSeed); err != nil {
		t.Fatal(err)
	}
	return m, []string{"--descriptors", desc, "--message", m.Name, "--seeds", seeds}
}

// A user's message goes through the JVM node as through the Go node, on
// every stack it serves: echoed through a chain Go → JVM → Go unchanged
// (proto.Equal: Java writes map entries in its own order), its get reply
// the Go generator's message (from the seeds, as Protobuf or in the proto
// JSON mapping through JsonFormat), its post acknowledged with its count.
func TestTheJVMNodeServesAUsersMessage(t *testing.T) {
	const count = 7
	m, user := useOrders(t, count)
	want, err := m.Message(count, payload.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, stack := range []string{"rest", "rest+proto", "rest+gzip", "grpc", "grpc+gzip"} {
		t.Run(stack, func(t *testing.T) {
			st, err := transport.ParseStack(stack)
			if err != nil {
				t.Fatal(err)
			}
			cc, _ := codec.Lookup(st.Codec)
			z, body := compression(t, st), codec.Codec(cc)
			if st.Transport == "rest" { // gRPC compresses in its framing, under the body
				body = codec.Compressed(cc, z, codec.DefaultMaxBytes)
			}
			middle := startJVM(t, slices.Concat(user, []string{"--stack", stack, "--downstream", startGo(t, st)})...)
			chain := dial(t, st, startGo(t, st, middle))
			leaf := dial(t, st, startJVM(t, slices.Concat(user, []string{"--stack", stack})...))
			call := func(c transport.Client, op transport.Op, msg proto.Message, into proto.Message) {
				t.Helper()
				req := &transport.Request{Op: op, Model: m.Name, Count: count, Codec: cc, Compression: z}
				if msg != nil {
					if req.Body, err = body.Marshal(msg); err != nil {
						t.Fatal(err)
					}
				}
				got, err := c.Call(context.Background(), req)
				if err != nil {
					t.Fatalf("%s of %s×%d: %v", op, m.Name, count, err)
				}
				if err := body.Unmarshal(got, into); err != nil {
					t.Fatalf("%s of %s×%d: the reply does not decode: %v", op, m.Name, count, err)
				}
			}
			for name, c := range map[string]transport.Client{"Go → JVM → Go": chain, "the JVM node": leaf} {
				back := m.New()
				if call(c, transport.OpEcho, want, back); !proto.Equal(back, want) {
					t.Errorf("echo of %s×%d through %s came back changed", m.Name, count, name)
				}
			}
			got, ack := m.New(), new(pb.Ack)
			if call(leaf, transport.OpGet, nil, got); !proto.Equal(got, want) {
				t.Errorf("get of %s×%d: the JVM node's reply is not the Go generator's message", m.Name, count)
			}
			if call(leaf, transport.OpPost, want, ack); ack.Model != m.Name || ack.Count != count {
				t.Errorf("post of %s×%d: ack %v", m.Name, count, ack)
			}
		})
	}
}

// A JVM node given a user's message it cannot serve refuses it by name,
// before it serves anything, with exit code 2.
func TestTheJVMNodeRefusesAUsersMessageItCannotBuild(t *testing.T) {
	_, user := useOrders(t, 1)
	desc := user[1]
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--descriptors", desc}, "--descriptors and --message go together"},
		{[]string{"--descriptors", desc, "--message", "shop.Ordr"}, "no hopbench.user.OrdrList of shop.Ordr"},
		{[]string{"--descriptors", desc + ".missing", "--message", "shop.Order"}, ".missing: no such file"},
		{[]string{"--descriptors", user[5], "--message", "shop.Order"}, "not a descriptor set"},
	} {
		argv := slices.Concat(jvm.Command(jar(t), jvm.Options{}.Flags()), []string{"--stack", "rest", "--announce"}, c.args)
		var stderr strings.Builder
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || len(out) > 0 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: %v, stdout %q, stderr %q; want exit 2 saying %q", c.args, err, out, stderr.String(), c.want)
		}
	}
}
