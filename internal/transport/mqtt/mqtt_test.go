package mqtt_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/racetest"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/mqtt"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
)

func TestMain(m *testing.M) { brokertest.Main(m, "", "mosquitto") }

// TestConformance runs over a real Mosquitto, at each QoS.
func TestConformance(t *testing.T) {
	listen := "mqtt://" + brokertest.Addrs["mosquitto"] + "/"
	for _, v := range []transporttest.Variant{
		{Name: "proto/qos1", Config: transport.Config{Codec: "proto"}, Large: true},
		{Name: "json/qos0", Config: transport.Config{Codec: "json", Options: map[string]string{"qos": "0"}}},
		{Name: "json+zstd/qos2", Config: transport.Config{Codec: "json", Compression: "zstd", Options: map[string]string{"qos": "2"}}},
		{Name: "proto/emulated-network", Config: transport.Config{Codec: "proto"}, Network: transporttest.Emulated},
		{Name: "proto/serve=serial", Config: transport.Config{Codec: "proto", Options: map[string]string{"serve": "serial"}}},
	} {
		// paho.golang v0.23.0 (the newest served here) writes a PUBREL on
		// its connection without its state's lock while a disconnect
		// replaces that connection: a race inside the library whenever a
		// QoS 2 exchange is in flight as a client closes
		// (eclipse-paho/paho.golang#343, fixed upstream after v0.23.0).
		// QoS 2 is tested without the race detector (scripts/unraced.sh),
		// and with it once paho.golang is upgraded.
		if racetest.Enabled && strings.HasSuffix(v.Name, "qos2") {
			t.Logf("%s: not under the race detector (paho.golang#343): make test runs it without", v.Name)
			continue
		}
		v.Transport, v.Listen = "mqtt", listen
		transporttest.Run(t, v)
	}
	transporttest.Run(t, transporttest.Variant{Name: "proto/mtls", Transport: "mqtt", Listen: "mqtt://" + brokertest.TLSAddrs["mosquitto"] + "/",
		Config: transport.Config{Codec: "proto", ClientTLS: brokertest.TLS.Client(true)}})
}

func TestRefusals(t *testing.T) {
	transporttest.CheckRefusals(t, "mqtt", []transporttest.Refusal{
		{Config: transport.Config{HTTP2: true}, Want: "HTTP/2"},
		{Config: transport.Config{Options: map[string]string{"qos": "3"}}, Want: "want one of [0 1 2]"},
		{Config: transport.Config{Options: map[string]string{"acks": "all"}}, Want: `unknown option "acks" (known: qos, serve)`},
	})
}

func TestReplicasShareAService(t *testing.T) {
	transporttest.CheckReplicas(t, "mqtt", "mqtt://"+brokertest.Addrs["mosquitto"]+"/replicated", transport.Config{Codec: "proto"})
}

// A service whose broker connection drops says so (the node's /ready
// answers 503 and a run classifies it).
func TestServerSaysWhenItsBrokerConnectionDrops(t *testing.T) {
	transporttest.CheckHealth(t, "mqtt", "mqtt://"+brokertest.Addrs["mosquitto"]+"/health", transport.Config{Codec: "proto"})
}

// At QoS 1 a request no service subscribes to fails at once, as the
// broker's PUBACK says (no matching subscribers), rather than at its
// deadline.
func TestARequestNobodyServesFailsAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tr, err := transport.Lookup("mqtt")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := transport.Dial(context.Background(), tr, "mqtt://"+brokertest.Addrs["mosquitto"]+"/nobody", transport.Config{Codec: "proto"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	proto, _ := codec.Lookup("proto")
	none, _ := codec.LookupCompression("none")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = cl.Call(ctx, &transport.Request{Op: transport.OpGet, Model: "user", Count: 1, Codec: proto, Compression: none})
	if transport.CodeOf(err) != transport.CodeUnavailable || !strings.Contains(err.Error(), "no service subscribes to nobody") {
		t.Fatalf("got %v, want unavailable: no service subscribes to nobody", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the call waited for its deadline")
	}
}

// A message that does not fit the broker's maximum packet size is refused
// before it is sent, naming the limit, and the connection stays up (the
// broker would drop a client that sent it).
func TestAMessageOverTheBrokersPacketSizeIsRefused(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tr, err := transport.Lookup("mqtt")
	if err != nil {
		t.Fatal(err)
	}
	addr := "mqtt://" + brokertest.Addrs["mosquitto"] + "/big"
	cfg := transport.Config{Codec: "proto", MaxBytes: 80 << 20}
	srv, err := transport.Listen(context.Background(), tr, addr, cfg, transport.Handler{Bytes: func(_ context.Context, req *transport.Request) ([]byte, error) { return req.Body, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cl, err := transport.Dial(context.Background(), tr, addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	proto, _ := codec.Lookup("proto")
	none, _ := codec.LookupCompression("none")
	req := &transport.Request{Op: transport.OpEcho, Model: "blob", Codec: proto, Compression: none, Body: make([]byte, broker.MosquittoMaxPacket)}
	_, err = cl.Call(context.Background(), req)
	if transport.CodeOf(err) != transport.CodeTooLarge || !strings.Contains(err.Error(), strconv.Itoa(broker.MosquittoMaxPacket)) {
		t.Fatalf("got %v, want too large naming the broker's maximum packet size", err)
	}
	req.Body = []byte("small")
	if got, err := cl.Call(context.Background(), req); err != nil || string(got) != "small" {
		t.Fatalf("the next call: %q, %v", got, err)
	}
}
