package amqp_test

import (
	"testing"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/amqp"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
)

func TestMain(m *testing.M) { brokertest.Main(m, "", "rabbitmq") }

// TestConformance runs over a real RabbitMQ, both reply modes, and the
// persistence and confirm options.
func TestConformance(t *testing.T) {
	listen := "amqp://" + brokertest.Addrs["rabbitmq"] + "/"
	variants := []transporttest.Variant{
		{Name: "json/direct-reply", Config: transport.Config{Codec: "json"}},
		{Name: "proto/reply-queue", Config: transport.Config{Codec: "proto", Options: map[string]string{"reply": "queue"}}},
		{Name: "proto+gzip/persistent+confirm", Config: transport.Config{Codec: "proto", Compression: "gzip",
			Options: map[string]string{"persistent": "true", "confirm": "true"}}},
		{Name: "json/direct-reply/emulated-network", Config: transport.Config{Codec: "json"}, Network: transporttest.Emulated},
		{Name: "proto/direct-reply/serve=serial", Config: transport.Config{Codec: "proto", Options: map[string]string{"serve": "serial"}}},
	}
	for _, v := range variants {
		v.Transport, v.Listen = "amqp", listen
		transporttest.Run(t, v)
	}
	transporttest.Run(t, transporttest.Variant{Name: "proto/mtls", Transport: "amqp", Listen: "amqp://" + brokertest.TLSAddrs["rabbitmq"] + "/",
		Config: transport.Config{Codec: "proto", ClientTLS: brokertest.TLS.Client(true)}})
}

func TestRefusals(t *testing.T) {
	transporttest.CheckRefusals(t, "amqp", []transporttest.Refusal{
		{Config: transport.Config{HTTP2: true}, Want: "HTTP/2"},
		{Config: transport.Config{Options: map[string]string{"reply": "mailbox"}}, Want: "want one of [direct queue]"},
		{Config: transport.Config{Options: map[string]string{"acks": "all"}}, Want: `unknown option "acks" (known: reply, prefetch, persistent, confirm, queue, ack, serve)`},
	})
}

func TestReplicasShareAService(t *testing.T) {
	transporttest.CheckReplicas(t, "amqp", "amqp://"+brokertest.Addrs["rabbitmq"]+"/replicated", transport.Config{Codec: "proto"})
}

// A service whose broker connection drops says so (the node's /ready
// answers 503 and a run classifies it).
func TestServerSaysWhenItsBrokerConnectionDrops(t *testing.T) {
	transporttest.CheckHealth(t, "amqp", "amqp://"+brokertest.Addrs["rabbitmq"]+"/health", transport.Config{Codec: "proto"})
}
