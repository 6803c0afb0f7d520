package kafka_test

import (
	"context"
	"strings"
	"testing"

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
	} {
		v.Transport, v.Listen = "kafka", listen
		transporttest.Run(t, v)
	}
}

func TestRefusals(t *testing.T) {
	transporttest.CheckRefusals(t, "kafka", []transporttest.Refusal{
		{Config: transport.Config{HTTP2: true}, Want: "HTTP/2"},
		{Config: transport.Config{Options: map[string]string{"acks": "some"}}, Want: "want one of [all leader none]"},
	})
}

// Kafka's client would compress batches by itself (snappy); the stack's
// bytes must be what its codec and compression make, so a compressible
// body crosses the wire at full size.
func TestNoHiddenBatchCompression(t *testing.T) {
	st, err := transport.ParseStack("kafka+json")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n, err := node.Start(ctx, node.Config{Stack: st, Listen: "kafka://" + brokertest.Addrs["kafka"] + "/"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	counter := &wire.Counter{}
	tr, _ := transport.Lookup("kafka")
	cl, err := tr.Dial(ctx, n.Addr(), transport.Config{Dialer: &wire.Dialer{Counter: counter}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	json, _ := codec.Lookup("json")
	none, _ := codec.LookupCompression("none")
	body := []byte(`{"text":"` + strings.Repeat("x", 100_000) + `"}`)
	before := counter.Snapshot()
	if _, err := cl.Call(ctx, &transport.Request{Op: transport.OpEcho, Model: "text", Body: body, Codec: json, Compression: none}); err != nil {
		t.Fatal(err)
	}
	if got := counter.Snapshot().Sub(before); got.Written < int64(len(body)) || got.Read < int64(len(body)) {
		t.Fatalf("a %d-byte body crossed as %d bytes sent, %d received: compressed behind the stack's back", len(body), got.Written, got.Read)
	}
}

func TestReplicasShareAService(t *testing.T) {
	transporttest.CheckReplicas(t, "kafka", "kafka://"+brokertest.Addrs["kafka"]+"/replicated", transport.Config{Codec: "proto"})
}
