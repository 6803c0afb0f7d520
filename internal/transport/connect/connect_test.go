package connect_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
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
				{Name: "tls", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}},
				{Name: "mtls+h2+gzip", Config: transport.Config{HTTP2: true, Compression: "gzip", ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
				{Name: "tls/emulated-network", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, Network: transporttest.Emulated},
				{Name: "json", Config: transport.Config{Codec: "json"}},
				{Name: "json+gzip+h2c", Config: transport.Config{Codec: "json", Compression: "gzip", HTTP2: true}},
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
			{Config: transport.Config{Codec: "msgpack"}, Want: name + ` carries proto and json bodies only, not "msgpack"`},
			{Config: transport.Config{Compression: "zstd"}, Want: `gzip only`},
		})
	}
}

// A browser-free gRPC-Web check, as curl would make it: a POST of
// Content-Type application/grpc-web+proto with one length-prefixed
// GetRequest frame gets a valid framed reply (a data frame holding the
// Payload, then a trailer frame with grpc-status 0) from a connect node.
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
}

// connect+json is Connect's JSON as any Connect client sends it: a POST
// of application/json with the proto JSON mapping of a GetRequest gets
// the Payload in the proto JSON mapping, the model's items inside as the
// node encoded them (64-bit integers as strings, names in lowerCamelCase).
func TestAConnectJSONCallGetsTheProtoJSONMapping(t *testing.T) {
	tr, _ := transport.Lookup("connect")
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{Codec: "json"}, transport.Handler{Bytes: func(_ context.Context, req *transport.Request) ([]byte, error) {
		if req.Codec.Name() != "protojson" {
			return nil, transport.Errorf(transport.CodeBadRequest, "the handler got %s, want protojson", req.Codec.Name())
		}
		if req.Op == transport.OpEcho { // decoded as the node decodes it
			if err := req.Codec.Unmarshal(req.Body, &pb.UserList{}); err != nil {
				return nil, transport.Errorf(transport.CodeBadRequest, "decoding: %v", err)
			}
			return req.Body, nil
		}
		return req.Codec.Marshal(&pb.AllTypesList{Records: []*pb.AllTypes{{TextField: "t", LongField: int64(req.Count)}}})
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Post("http://"+srv.Addr()+"/hopbench.v1.Hop/Get", "application/json", strings.NewReader(`{"model":"alltypes","count":"3"}`))
	if err != nil {
		t.Fatal(err)
	}
	reply, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var p pb.Payload
	if resp.StatusCode != http.StatusOK || protojson.Unmarshal(reply, &p) != nil || len(p.GetAlltypes().GetRecords()) != 1 || p.GetAlltypes().GetRecords()[0].GetLongField() != 3 {
		t.Fatalf("%s: %s; want 200 and a Payload of one record in the proto JSON mapping", resp.Status, reply)
	}
	var raw struct {
		Alltypes struct{ Records []map[string]any }
	}
	if err := json.Unmarshal(reply, &raw); err != nil || len(raw.Alltypes.Records) != 1 || raw.Alltypes.Records[0]["longField"] != "3" || raw.Alltypes.Records[0]["textField"] != "t" {
		t.Errorf("the reply %s is not in the proto JSON mapping (lowerCamelCase, 64-bit integers as strings): %v", reply, err)
	}
	resp, err = http.Post("http://"+srv.Addr()+"/hopbench.v1.Hop/Echo", "application/json", strings.NewReader(`{"user":{},"text":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	refusal, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a Payload of two models: %s %s; want 400", resp.Status, refusal)
	}
}

// Reflection lists Hop and a user's message's service and serves the
// files that describe them, as the grpc stack's does: grpcurl and buf curl
// call a connect node without the .proto.
func TestReflectionDescribesAUsersService(t *testing.T) {
	transporttest.CheckReflection(t, "connect")
}

// Every Connect-family JSON content type with "; charset=utf-8", which
// the node lists in its own Accept-Post (connect-es sends it), is served
// as its plain twin: connect-go serves those names with its stock codec
// unless one is registered, and that codec could not read a frame (400
// "*hopframe.Frame doesn't implement proto.Message").
func TestJSONWithACharsetIsServed(t *testing.T) {
	tr, _ := transport.Lookup("connect")
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{Codec: "json"}, transport.Handler{Bytes: func(_ context.Context, req *transport.Request) ([]byte, error) {
		return req.Codec.Marshal(&pb.Int{Value: int32(req.Count)})
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	get := []byte(`{"model":"int","count":"1"}`)
	framed := append(binary.BigEndian.AppendUint32([]byte{0}, uint32(len(get))), get...)
	h2c := new(http.Protocols)
	h2c.SetUnencryptedHTTP2(true)
	clients := map[bool]*http.Client{false: http.DefaultClient, true: {Transport: &http.Transport{Protocols: h2c}}}
	for _, c := range []struct {
		contentType string
		body        []byte
		http2       bool
	}{
		{"application/json; charset=utf-8", get, false},
		{"application/grpc-web+json; charset=utf-8", framed, false},
		{"application/grpc+json; charset=utf-8", framed, true},
	} {
		req, _ := http.NewRequest(http.MethodPost, "http://"+srv.Addr()+"/hopbench.v1.Hop/Get", bytes.NewReader(c.body))
		req.Header.Set("Content-Type", c.contentType)
		resp, err := clients[c.http2].Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.contentType, err)
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		status := cmp.Or(resp.Trailer.Get("Grpc-Status"), resp.Header.Get("Grpc-Status"))
		if resp.StatusCode != http.StatusOK || !bytes.Contains(reply, []byte(`"int"`)) || (status != "" && status != "0") {
			t.Errorf("%s: %s, grpc-status %q, %q; want 200 and the Payload in JSON", c.contentType, resp.Status, status, reply)
		}
	}
}

// A caller's deadline ends its call on the Connect family as gRPC's
// does: connect-go leaves Connect-Timeout-Ms and grpc-timeout to the
// handler, and a Get past its 1 ms came back 200 with the whole reply.
func TestACallersDeadlineIsKept(t *testing.T) {
	tr, _ := transport.Lookup("connect")
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{Codec: "json"}, transport.Handler{Bytes: func(ctx context.Context, req *transport.Request) ([]byte, error) {
		<-ctx.Done() // a reply that takes longer than the caller gave it
		return req.Codec.Marshal(&pb.Int{Value: 1})
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, "http://"+srv.Addr()+"/hopbench.v1.Hop/Get", strings.NewReader(`{"model":"int","count":"1"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Connect-Timeout-Ms", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK || !strings.Contains(string(body), "deadline_exceeded") {
		t.Errorf("a call past its Connect-Timeout-Ms: %s %s; want deadline_exceeded", resp.Status, body)
	}
}
