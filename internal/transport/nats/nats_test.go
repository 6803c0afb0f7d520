package nats_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/nats"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
)

func TestMain(m *testing.M) { brokertest.Main(m, "", "nats") }

func TestConformance(t *testing.T) {
	listen := "nats://" + brokertest.Addrs["nats"] + "/"
	for _, v := range []transporttest.Variant{
		{Name: "proto", Config: transport.Config{Codec: "proto"}, Large: true},
		{Name: "json+zstd", Config: transport.Config{Codec: "json", Compression: "zstd"}},
		{Name: "proto/emulated-network", Config: transport.Config{Codec: "proto"}, Network: transporttest.Emulated},
		{Name: "proto/serve=serial", Config: transport.Config{Codec: "proto", Options: map[string]string{"serve": "serial"}}},
	} {
		v.Transport, v.Listen = "nats", listen
		transporttest.Run(t, v)
	}
	transporttest.Run(t, transporttest.Variant{Name: "proto/mtls", Transport: "nats", Listen: "nats://" + brokertest.TLSAddrs["nats"] + "/",
		Config: transport.Config{Codec: "proto", ClientTLS: brokertest.TLS.Client(true)}})
}

func TestRefusals(t *testing.T) {
	transporttest.CheckRefusals(t, "nats", []transporttest.Refusal{
		{Config: transport.Config{HTTP2: true}, Want: "HTTP/2"},
	})
}

func TestReplicasShareAService(t *testing.T) {
	transporttest.CheckReplicas(t, "nats", "nats://"+brokertest.Addrs["nats"]+"/replicated", transport.Config{Codec: "proto"})
}

// A service whose broker connection drops says so (the node's /ready
// answers 503 and a run classifies it).
func TestServerSaysWhenItsBrokerConnectionDrops(t *testing.T) {
	transporttest.CheckHealth(t, "nats", "nats://"+brokertest.Addrs["nats"]+"/health", transport.Config{Codec: "proto"})
}
