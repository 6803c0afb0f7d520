package redis_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/redis"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
)

func TestMain(m *testing.M) { brokertest.Main(m, "", "redis") }

// TestConformance runs over a real Redis, plain and over mutual TLS.
func TestConformance(t *testing.T) {
	listen := "redis://" + brokertest.Addrs["redis"] + "/"
	for _, v := range []transporttest.Variant{
		{Name: "proto", Config: transport.Config{Codec: "proto"}, Large: true},
		{Name: "json+zstd", Config: transport.Config{Codec: "json", Compression: "zstd"}},
		{Name: "proto/emulated-network", Config: transport.Config{Codec: "proto"}, Network: transporttest.Emulated},
		{Name: "proto/serve=serial", Config: transport.Config{Codec: "proto", Options: map[string]string{"serve": "serial"}}},
	} {
		v.Transport, v.Listen = "redis", listen
		transporttest.Run(t, v)
	}
	transporttest.Run(t, transporttest.Variant{Name: "proto/mtls", Transport: "redis", Listen: "redis://" + brokertest.TLSAddrs["redis"] + "/",
		Config: transport.Config{Codec: "proto", ClientTLS: brokertest.TLS.Client(true)}})
}

func TestRefusals(t *testing.T) {
	transporttest.CheckRefusals(t, "redis", []transporttest.Refusal{
		{Config: transport.Config{HTTP2: true}, Want: "HTTP/2"},
		{Config: transport.Config{Options: map[string]string{"maxlen": "0"}}, Want: "want a whole number of 1 or more"},
		{Config: transport.Config{Options: map[string]string{"acks": "all"}}, Want: `unknown option "acks" (known: maxlen, serve)`},
	})
}

func TestReplicasShareAService(t *testing.T) {
	transporttest.CheckReplicas(t, "redis", "redis://"+brokertest.Addrs["redis"]+"/replicated", transport.Config{Codec: "proto"})
}

// A service whose broker connection drops says so (the node's /ready
// answers 503 and a run classifies it).
func TestServerSaysWhenItsBrokerConnectionDrops(t *testing.T) {
	transporttest.CheckHealth(t, "redis", "redis://"+brokertest.Addrs["redis"]+"/health", transport.Config{Codec: "proto"})
}
