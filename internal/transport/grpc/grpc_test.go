package grpc_test

import (
	"context"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/grpc"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
	"github.com/hopbench/hopbench/internal/userschema"
)

func TestConformance(t *testing.T) {
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []transporttest.Variant{
		{Name: "plain", Large: true},
		{Name: "gzip", Config: transport.Config{Compression: "gzip"}},
		{Name: "tls", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, Large: true},
		{Name: "mtls+gzip", Config: transport.Config{Compression: "gzip", ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
		{Name: "tls/emulated-network", Config: transport.Config{ServerTLS: b.Server(false), ClientTLS: b.Client(false)}, Network: transporttest.Emulated},
	} {
		v.Transport = "grpc"
		transporttest.Run(t, v)
	}
	// grpc-stream: each client's calls over one bidirectional stream.
	for _, v := range []transporttest.Variant{
		{Name: "stream", Large: true},
		{Name: "stream+mtls+gzip", Config: transport.Config{Compression: "gzip", ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
		{Name: "stream/emulated-network", Network: transporttest.Emulated},
	} {
		v.Transport = "grpc-stream"
		transporttest.Run(t, v)
	}
}

func TestRefusesWhatGRPCCannotCarry(t *testing.T) {
	transporttest.CheckRefusals(t, "grpc", []transporttest.Refusal{
		{Config: transport.Config{Codec: "json"}, Want: `grpc carries proto bodies only, not "json"`},
		{Config: transport.Config{Compression: "zstd"}, Want: `gzip only`},
	})
}

// Reflection lists a user's message's service beside Hop and serves the
// files that describe it, so grpcurl and ghz call it without the .proto.
func TestReflectionDescribesAUsersService(t *testing.T) {
	dir := "../../../examples/proto"
	if _, err := userschema.Use(context.Background(), userschema.Source{Files: []string{dir + "/shop/orders.proto"}, ImportPaths: []string{dir}, Message: "shop.Order"}); err != nil {
		t.Fatal(err)
	}
	tr, _ := transport.Lookup("grpc")
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{}, transport.Handler{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ask := func(req *reflectionpb.ServerReflectionRequest) *reflectionpb.ServerReflectionResponse {
		t.Helper()
		if err := stream.Send(req); err != nil {
			t.Fatal(err)
		}
		resp, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var names []string
	for _, s := range ask(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}).GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	if !slices.Contains(names, "hopbench.user.OrderService") || !slices.Contains(names, "hopbench.v1.Hop") {
		t.Fatalf("services %v, want hopbench.user.OrderService beside hopbench.v1.Hop", names)
	}
	files := ask(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: "hopbench.user.OrderService"}}).GetFileDescriptorResponse().GetFileDescriptorProto()
	var paths []string
	for _, b := range files {
		var fd descriptorpb.FileDescriptorProto
		if err := proto.Unmarshal(b, &fd); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, fd.GetName())
	}
	for _, want := range []string{"hopbench/user/shop.Order.list.proto", "shop/orders.proto", "common/money.proto", "hopbench/v1/service.proto"} {
		if !slices.Contains(paths, want) {
			t.Errorf("reflection's files for the service %v lack %s", paths, want)
		}
	}
}
