package connect_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/connect"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// Each stack of the family passes the conformance suite: plain, gzip,
// TLS and mutual TLS, over HTTP/1.1 and HTTP/2 (connect-grpc: HTTP/2
// always), and under an emulated network.
func TestConformance(t *testing.T) {
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"connect", "grpcweb", "connect-grpc"} {
		t.Run(name, func(t *testing.T) {
			for _, v := range []transporttest.Variant{
				{Name: "plain", Large: true},
				{Name: "gzip", Config: transport.Config{Compression: "gzip"}},
				{Name: "h2c", Config: transport.Config{HTTP2: true}},
				{Name: "tls", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, Large: true},
				{Name: "mtls+h2+gzip", Config: transport.Config{HTTP2: true, Compression: "gzip", ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
				{Name: "tls/emulated-network", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, Network: transporttest.Emulated},
			} {
				v.Transport = name
				transporttest.Run(t, v)
			}
		})
	}
}

func TestRefusesWhatTheFamilyCannotCarry(t *testing.T) {
	for _, name := range []string{"connect", "grpcweb", "connect-grpc"} {
		transporttest.CheckRefusals(t, name, []transporttest.Refusal{
			{Config: transport.Config{Codec: "json"}, Want: name + ` carries proto bodies only, not "json"`},
			{Config: transport.Config{Compression: "zstd"}, Want: `gzip only`},
		})
	}
}

// A browser-free gRPC-Web check, as curl would make it: a POST of
// Content-Type application/grpc-web+proto with one length-prefixed
// GetRequest frame gets a valid framed reply (a data frame holding the
// Payload, then a trailer frame with grpc-status 0) from a connect node;
// a JSON call is refused, saying why.
func TestAGRPCWebCallWithoutABrowserGetsAFramedReply(t *testing.T) {
	tr, _ := transport.Lookup("connect")
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{}, transport.Handler{Bytes: func(_ context.Context, req *transport.Request) ([]byte, error) {
		return proto.Marshal(&pb.Int{Value: int32(req.Count)})
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	get, _ := proto.Marshal(&pb.GetRequest{Model: "int", Count: 1})
	body := append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(get))), get...)
	resp, err := http.Post("http://"+srv.Addr()+"/hopbench.v1.Hop/Get", "application/grpc-web+proto", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	reply, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/grpc-web+proto" || len(reply) < 5 || reply[0] != 0 {
		t.Fatalf("%s %q: %x; want 200 and a data frame", resp.Status, resp.Header.Get("Content-Type"), reply)
	}
	n := binary.BigEndian.Uint32(reply[1:5])
	var p pb.Payload
	if err := proto.Unmarshal(reply[5:5+n], &p); err != nil || p.GetInt().GetValue() != 1 {
		t.Errorf("the data frame %x is not a Payload of Int 1: %v", reply[5:5+n], err)
	}
	if trailer := reply[5+n:]; len(trailer) < 5 || trailer[0] != 0x80 || !strings.Contains(string(trailer[5:]), "grpc-status: 0") {
		t.Errorf("the trailer frame %q does not say grpc-status 0", trailer)
	}
	resp, err = http.Post("http://"+srv.Addr()+"/hopbench.v1.Hop/Get", "application/json", strings.NewReader(`{"model":"int","count":1}`))
	if err != nil {
		t.Fatal(err)
	}
	refusal, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(refusal), "JSON is not served") {
		t.Errorf("a JSON call: %s %s; want 400 saying JSON is not served", resp.Status, refusal)
	}
}

// Reflection lists Hop and a user's message's service and serves the
// files that describe them, as the grpc stack's does: grpcurl and buf curl
// call a connect node without the .proto.
func TestReflectionDescribesAUsersService(t *testing.T) {
	transporttest.CheckReflection(t, "connect")
}
