package kafka_test

import (
	"testing"

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
