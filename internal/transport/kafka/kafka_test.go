package kafka_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/wire"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/kafka"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
)

func TestMain(m *testing.M) { brokertest.Main(m, "", "kafka") }

func TestConformance(t *testing.T) {
	listen := "kafka://" + brokertest.Addrs["kafka"] + "/"
	for _, v := range []transporttest.Variant{
		{Name: "proto/acks-all", Config: transport.Config{Codec: "proto"}},
		{Name: "json+gzip/acks-leader", Config: transport.Config{Codec: "json", Compression: "gzip", Options: map[string]string{"acks": "leader"}}},
		{Name: "proto/acks-all/emulated-network", Config: transport.Config{Codec: "proto"}, Network: transporttest.Emulated},
		{Name: "proto/serve=serial", Config: transport.Config{Codec: "proto", Options: map[string]string{"serve": "serial"}}},
	} {
		v.Transport, v.Listen = "kafka", listen
		transporttest.Run(t, v)
	}
	if brokertest.Fake {
		return // kfake has no TLS listener
	}
	transporttest.Run(t, transporttest.Variant{Name: "proto/mtls", Transport: "kafka", Listen: "kafka://" + brokertest.TLSAddrs["kafka"] + "/",
		Config: transport.Config{Codec: "proto", ClientTLS: brokertest.TLS.Client(true)}})
}

func TestRefusals(t *testing.T) {
	transporttest.CheckRefusals(t, "kafka", []transporttest.Refusal{
		{Config: transport.Config{HTTP2: true}, Want: "HTTP/2"},
		{Config: transport.Config{Options: map[string]string{"acks": "some"}}, Want: "want one of [all leader none]"},
	})
}

// jsonNode is a kafka+json node on a topic of its own, with the stack's
// options given (nil: its defaults).
func jsonNode(t *testing.T, options map[string]string) *node.Node {
	t.Helper()
	st, err := transport.ParseStack("kafka+json")
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.Start(context.Background(), node.Config{Stack: st, Listen: "kafka://" + brokertest.Addrs["kafka"] + "/",
		Transport: transport.Config{Options: options}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// jsonEcho is an echo of a JSON text body, uncompressed.
func jsonEcho(body []byte) *transport.Request {
	json, _ := codec.Lookup("json")
	none, _ := codec.LookupCompression("none")
	return &transport.Request{Op: transport.OpEcho, Model: "text", Body: body, Codec: json, Compression: none}
}

// Kafka's client would compress batches by itself (snappy); the stack's
// bytes must be what its codec and compression make, so a compressible
// body crosses the wire at full size.
func TestNoHiddenBatchCompression(t *testing.T) {
	ctx := context.Background()
	n := jsonNode(t, nil)
	counter := &wire.Counter{}
	tr, _ := transport.Lookup("kafka")
	cl, err := tr.Dial(ctx, n.Addr(), transport.Config{Dialer: &wire.Dialer{Counter: counter}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	body := []byte(`{"text":"` + strings.Repeat("x", 100_000) + `"}`)
	before := counter.Snapshot()
	if _, err := cl.Call(ctx, jsonEcho(body)); err != nil {
		t.Fatal(err)
	}
	if got := counter.Snapshot().Sub(before); got.Written < int64(len(body)) || got.Read < int64(len(body)) {
		t.Fatalf("a %d-byte body crossed as %d bytes sent, %d received: compressed behind the stack's back", len(body), got.Written, got.Read)
	}
}

func TestReplicasShareAService(t *testing.T) {
	transporttest.CheckReplicas(t, "kafka", "kafka://"+brokertest.Addrs["kafka"]+"/replicated", transport.Config{Codec: "proto"})
}

// Each client reads a reply topic of its own: a client of a service does
// not receive the replies to another's calls (a shared reply topic made
// every caller read every reply), and its topic goes when it closes.
func TestEachClientReadsOnlyItsOwnReplies(t *testing.T) {
	ctx := context.Background()
	n := jsonNode(t, nil)
	tr, _ := transport.Lookup("kafka")
	busy, idle := &wire.Counter{}, &wire.Counter{}
	a, err := tr.Dial(ctx, n.Addr(), transport.Config{Dialer: &wire.Dialer{Counter: busy}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.Dial(ctx, n.Addr(), transport.Config{Dialer: &wire.Dialer{Counter: idle}})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"text":"` + strings.Repeat("x", 100_000) + `"}`)
	idleBefore := idle.Snapshot()
	for range 5 {
		if _, err := a.Call(ctx, jsonEcho(body)); err != nil {
			t.Fatal(err)
		}
	}
	// The idle client then makes a call of its own. Its reply is produced
	// after the busy client's five, so on a shared reply topic its fetches
	// would have read those before its own reply came: once it has come,
	// whatever it was going to bring has been brought.
	if _, err := b.Call(ctx, jsonEcho([]byte(`{"text":"x"}`))); err != nil {
		t.Fatal(err)
	}
	if got := idle.Snapshot().Sub(idleBefore).Read; got >= int64(len(body)) {
		t.Errorf("a client that made no call read %d bytes while another received five %d-byte replies", got, len(body))
	}
	a.Close()
	b.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokertest.Addrs["kafka"]))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// Kafka deletes a topic asynchronously: its metadata may name it a
	// moment longer.
	prefix := strings.TrimPrefix(n.Addr(), "kafka://"+brokertest.Addrs["kafka"]+"/") + ".replies"
	var left []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		topics, err := kadm.NewClient(cl).ListTopics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		left = slices.DeleteFunc(topics.Names(), func(name string) bool { return !strings.HasPrefix(name, prefix) })
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("reply topics %v left 10s after their clients closed", left)
	}
}

// Requests left in a service's topic while no node served it are past
// their callers' deadlines when a node comes back: it does not work on
// them (their callers have gone) but on the requests that wait for it.
func TestANodeBackDoesNotServeRequestsItsCallersGaveUp(t *testing.T) {
	tr, _ := transport.Lookup("kafka")
	st, _ := transport.ParseStack("kafka+json")
	addr := "kafka://" + brokertest.Addrs["kafka"] + "/hopbench.stale." + strconv.FormatInt(time.Now().UnixNano(), 36)
	var mu sync.Mutex
	served := map[string]int{}
	handler := func(name string) transport.Handler {
		return transport.Handler{Bytes: func(_ context.Context, req *transport.Request) ([]byte, error) {
			mu.Lock()
			served[name]++
			mu.Unlock()
			return req.Body, nil
		}}
	}
	ctx := context.Background()
	first, err := tr.Listen(ctx, addr, st.Config(), handler("first"))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := tr.Dial(ctx, addr, st.Config())
	if err != nil {
		first.Close()
		t.Fatal(err)
	}
	defer cl.Close()
	call := func(timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		_, err := cl.Call(ctx, jsonEcho([]byte(`{"text":"x"}`)))
		return err
	}
	if err := call(time.Second); err != nil {
		t.Fatal(err)
	}
	first.Close()
	if err := call(300 * time.Millisecond); transport.CodeOf(err) != transport.CodeDeadline {
		t.Fatalf("a call with no node serving: %v; want its deadline exceeded", err)
	}
	second, err := tr.Listen(ctx, addr, st.Config(), handler("second"))
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if err := call(5 * time.Second); err != nil {
		t.Fatalf("a call to the node back: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if served["first"] != 1 || served["second"] != 1 {
		t.Errorf("served %v; want one request each: the one left behind had no caller any more", served)
	}
}

// A service whose broker connection drops says so (the node's /ready
// answers 503 and a run classifies it).
func TestServerSaysWhenItsBrokerConnectionDrops(t *testing.T) {
	transporttest.CheckHealth(t, "kafka", "kafka://"+brokertest.Addrs["kafka"]+"/health", transport.Config{Codec: "proto"})
}

// A call that has given up takes no other call down with it: franz-go
// fails a whole batch whose first record's context has ended, so a request
// or a reply produced under its call's context, lingering past its end,
// failed the records batched behind it. Here the node's replies, then the
// client's requests, linger half a second, so the two calls' records share
// a batch (the request topic has one partition, so that the requests do).
func TestACallGivenUpLosesNoOther(t *testing.T) {
	for _, c := range []struct {
		name         string
		node, client map[string]string
	}{
		{"the node's replies linger", map[string]string{"linger": "500ms", "partitions": "1"}, nil},
		{"the client's requests linger", map[string]string{"partitions": "1"}, map[string]string{"linger": "500ms"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := jsonNode(t, c.node)
			tr, _ := transport.Lookup("kafka")
			cl, err := tr.Dial(context.Background(), n.Addr(), transport.Config{Options: c.client})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			checkNoCallLostToAnother(t, cl)
		})
	}
}

// checkNoCallLostToAnother makes a call that gives up after 150ms, and
// 50ms later one with 10s to go, which must be answered.
func checkNoCallLostToAnother(t *testing.T, cl transport.Client) {
	t.Helper()
	late := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		_, err := cl.Call(ctx, jsonEcho([]byte(`{"text":"late"}`)))
		late <- err
	}()
	time.Sleep(50 * time.Millisecond) // the late call's record is lingering
	onTime, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cl.Call(onTime, jsonEcho([]byte(`{"text":"on time"}`))); err != nil {
		t.Fatalf("a call with 10s to go, its record batched behind one of a call that gave up after 150ms: %v", err)
	}
	if err := <-late; transport.CodeOf(err) != transport.CodeDeadline {
		t.Errorf("a call with 150ms to go, its record lingering 500ms: %v; want its deadline exceeded", err)
	}
}
