// Package combos is the combinations suite: every registered stack over
// every combination its capabilities (transport.Caps) declare, through
// real nodes, so that a combination a spec may name either carries its
// payloads or is refused when the stack is parsed, never accepted only to
// fail every call. Brokers are real under make test; under -short Kafka
// is franz-go's kfake, NATS runs in process, and the stacks of RabbitMQ,
// Redis and Mosquitto wait for make test.
package combos

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/experiment"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/all"
	"github.com/hopbench/hopbench/internal/userschema"
)

// realOnly are the brokers that are real processes only, so -short runs
// without their stacks.
var realOnly = []string{"rabbitmq", "redis", "mosquitto"}

func TestMain(m *testing.M) {
	flag.Parse()
	names := []string{"kafka", "nats"}
	if !testing.Short() {
		names = append(names, realOnly...)
	}
	brokertest.Main(m, "", names...)
}

// userMessages are the users' messages every stack carries: one of every
// kind of field and well-known type the codecs claim, a shop order, and a
// value recursive through a oneof and a list.
var userMessages = []userschema.Source{
	{Files: []string{"testdata/kinds.proto"}, Message: "kinds.Record"},
	{Files: []string{"../../examples/proto/shop/orders.proto"}, ImportPaths: []string{"../../examples/proto"}, Message: "shop.Order"},
	{Files: []string{"../userschema/testdata/telemetry/telemetry.proto"}, Message: "telemetry.Span"},
}

var (
	useOnce sync.Once
	useErr  error
)

// payloads are every built-in model and every user's message, registered
// before any server starts (gRPC serves the services of the messages
// used).
func payloads(t *testing.T) []payload.Model {
	t.Helper()
	useOnce.Do(func() {
		for _, src := range userMessages {
			if _, err := userschema.Use(context.Background(), src); err != nil {
				useErr = errors.Join(useErr, err)
			}
		}
	})
	if useErr != nil {
		t.Fatal(useErr)
	}
	out := slices.Clone(payload.Models())
	for _, src := range userMessages {
		m, err := payload.Lookup(src.Message)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// cell is one combination: a stack (codec and compression included),
// TLS or not, and a chain of nodes (1: direct). every says the cell runs
// every payload; the others run one built-in model and one user's
// message (what a compression or TLS does to a body does not depend on
// the fields it holds).
type cell struct {
	stack transport.Stack
	tls   bool
	nodes int
	every bool
}

func (c cell) String() string {
	s := fmt.Sprintf("%s/chain:%d", c.stack, c.nodes)
	if c.nodes == 1 {
		s = c.stack.String() + "/direct"
	}
	if c.tls {
		s += "/tls"
	}
	return s
}

// cells are the combinations a stack declares, covered so that each
// declared value meets every payload at least once: every codec direct
// and on a chain of two with every payload; every codec with every
// compression direct, and TLS with the default codec direct and on a
// chain, with two payloads.
func cells(name string, caps transport.Caps) []cell {
	tls := caps.NeedsTLS != ""
	var out []cell
	for _, c := range caps.Codecs {
		for _, z := range compressions(name) {
			st := transport.Stack{Transport: name, Codec: c, Compression: z}
			out = append(out, cell{stack: st, tls: tls, nodes: 1, every: z == "none"})
		}
		out = append(out, cell{stack: transport.Stack{Transport: name, Codec: c, Compression: "none"}, tls: tls, nodes: 2, every: true})
	}
	if !tls {
		def := transport.Stack{Transport: name, Codec: caps.Codecs[0], Compression: "none"}
		out = append(out, cell{stack: def, tls: true, nodes: 1}, cell{stack: def, tls: true, nodes: 2})
	}
	return out
}

// few are the payloads of a cell that does not run every one.
var few = []string{"payment", "shop.Order"}

func compressions(name string) []string {
	tr, _ := transport.Lookup(name)
	return transport.CompressionsOf(tr)
}

// TestEveryStackCarriesEveryCombinationItDeclares runs each cell: every
// payload echoed and posted by several callers at once sharing one
// encoded body, as a run's workers do, with no error and the echo equal
// to the request.
func TestEveryStackCarriesEveryCombinationItDeclares(t *testing.T) {
	models := payloads(t)
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range transport.Names() {
		caps, _ := transport.CapsOf(name)
		t.Run(name, func(t *testing.T) {
			if skip := unavailable(caps); skip != "" {
				t.Skip(skip)
			}
			for _, c := range cells(name, caps) {
				if c.tls && caps.Broker == "kafka" && brokertest.Fake {
					continue // kfake has no TLS listener
				}
				t.Run(c.String(), func(t *testing.T) { runCell(t, c, caps, b, models) })
			}
		})
	}
}

// unavailable says why a stack's broker is not here (-short), "" when it
// is.
func unavailable(caps transport.Caps) string {
	if caps.Broker != "" && brokertest.Addrs[caps.Broker] == "" {
		return caps.Broker + " is a real process only: make test runs this stack"
	}
	return ""
}

func runCell(t *testing.T, c cell, caps transport.Caps, b *certs.Bundle, models []payload.Model) {
	ctx := context.Background()
	cfg := tlsConfig(c, caps, b)
	entry := startChain(t, c, caps, cfg)
	tr, _ := transport.Lookup(c.stack.Transport)
	ccfg := cfg
	ccfg.Codec, ccfg.Compression = c.stack.Codec, c.stack.Compression
	cl, err := transport.Dial(ctx, tr, entry, ccfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	bc, z, err := transport.BodyCodec(tr, c.stack)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range models {
		if !c.every && !slices.Contains(few, m.Name) {
			continue
		}
		if _, err := bc.Marshal(m.New()); err != nil {
			checkRefused(t, c, m, err)
			continue
		}
		if err := echoShared(ctx, cl, codec.Compressed(bc, z, codec.DefaultMaxBytes), bc, z, m); err != nil {
			t.Errorf("%s: %v", m.Name, err)
		}
	}
}

// checkRefused: a payload a codec cannot carry (json-fast has no Go
// struct for a user's message) is one a spec naming both is refused for
// before anything starts, naming the stack.
func checkRefused(t *testing.T, c cell, m payload.Model, why error) {
	t.Helper()
	src, ok := sourceOf(m.Name)
	if !ok {
		t.Errorf("%s over %s: the codec does not carry a built-in model (%v)", m.Name, c, why)
		return
	}
	spec := fmt.Sprintf("stacks: [%s]\ntls: %v\npayloads:\n  - proto: {files: %q, import_paths: %q, message: %s}\n    counts: [3]\nloads: [{closed: {clients: 1}}]\n",
		c.stack, c.tls, src.Files, src.ImportPaths, src.Message)
	_, err := experiment.Parse([]byte(spec))
	if err == nil || !strings.Contains(err.Error(), c.stack.String()) {
		t.Errorf("%s over %s: the codec does not carry it (%v), and the spec is not refused naming the stack: %v", m.Name, c, why, err)
	}
}

func sourceOf(model string) (userschema.Source, bool) {
	i := slices.IndexFunc(userMessages, func(s userschema.Source) bool { return s.Message == model })
	if i < 0 {
		return userschema.Source{}, false
	}
	return userMessages[i], true
}

// tlsConfig is the cell's TLS: a throwaway CA for direct stacks, the
// brokers' own certificates (a client certificate presented) for broker
// stacks; none when the cell is plain.
func tlsConfig(c cell, caps transport.Caps, b *certs.Bundle) transport.Config {
	switch {
	case !c.tls:
		return transport.Config{}
	case caps.Broker != "":
		return transport.Config{ClientTLS: brokertest.TLS.Client(true)}
	}
	return transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}
}

// startChain starts c's nodes, the last first, each calling the next, and
// returns the first's address; they stop when the test ends.
func startChain(t *testing.T, c cell, caps transport.Caps, cfg transport.Config) string {
	t.Helper()
	listen := "127.0.0.1:0"
	if caps.Broker != "" {
		addr := brokertest.Addrs[caps.Broker]
		if c.tls {
			addr = brokertest.TLSAddrs[caps.Broker]
		}
		listen = caps.Scheme + "://" + addr + "/"
	}
	var downstream []string
	for range c.nodes {
		n, err := node.Start(context.Background(), node.Config{Stack: c.stack, Listen: listen, Downstream: downstream, Transport: cfg})
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		t.Cleanup(func() { n.Close() })
		downstream = []string{n.Addr()}
	}
	return downstream[0]
}

// echoShared echoes and posts m's message from 3 callers at once, 4 calls
// each, all sending one encoded body; the body must come back intact.
func echoShared(ctx context.Context, cl transport.Client, cc codec.Codec, bc codec.Codec, z codec.Compression, m payload.Model) error {
	want, err := m.Message(min(3, cmp.Or(m.MaxCount, 3)), payload.DefaultSeed)
	if err != nil {
		return err
	}
	body, err := cc.Marshal(want)
	if err != nil {
		return err
	}
	kept := bytes.Clone(body)
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Go(func() {
			for i := range 4 {
				op := []transport.Op{transport.OpEcho, transport.OpPost}[i%2]
				req := &transport.Request{Op: op, Model: m.Name, Body: body, Codec: bc, Compression: z}
				got, err := cl.Call(ctx, req)
				if err == nil && op == transport.OpEcho {
					err = sameMessage(cc, m, got, want)
				}
				if err != nil {
					errs <- fmt.Errorf("%s: %w", op, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		err = errors.Join(err, e)
	}
	if err == nil && !bytes.Equal(body, kept) {
		err = errors.New("the caller's body was written to")
	}
	return err
}

func sameMessage(cc codec.Codec, m payload.Model, got []byte, want proto.Message) error {
	msg := m.New()
	if err := cc.Unmarshal(got, msg); err != nil {
		return fmt.Errorf("the echo does not decode: %w", err)
	}
	if !proto.Equal(msg, want) {
		return errors.New("the echo is not the request")
	}
	return nil
}

// TestWhatAStackDoesNotDeclareIsRefusedWhenParsed: every codec and
// compression a stack does not declare is refused by ParseStack, which
// spec validation, node and load all parse stacks with, naming what the
// stack carries instead.
func TestWhatAStackDoesNotDeclareIsRefusedWhenParsed(t *testing.T) {
	for _, name := range transport.Names() {
		caps, _ := transport.CapsOf(name)
		for _, c := range codec.Names() {
			for _, z := range codec.CompressionNames() {
				s := name + "+" + c + "+" + z
				_, err := transport.ParseStack(s)
				declared := slices.Contains(caps.Codecs, c) && slices.Contains(compressions(name), z)
				switch {
				case declared && err != nil:
					t.Errorf("%s: declared but refused: %v", s, err)
				case !declared && err == nil:
					t.Errorf("%s: not declared but accepted", s)
				case !declared && !strings.Contains(err.Error(), name+" "):
					t.Errorf("%s: the refusal does not name the stack: %v", s, err)
				}
			}
		}
	}
}
