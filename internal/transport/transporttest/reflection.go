package transporttest

import (
	"context"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/hopbench/hopbench/internal/transport"
)

// CheckReflection checks that a server of the stack called name serves
// gRPC's server reflection (over h2c, as grpcurl asks it): it lists a
// user's message's service beside Hop and serves the files that describe
// it, so grpcurl and ghz call it without the .proto.
func CheckReflection(t *testing.T, name string) {
	t.Helper()
	useOrders(t)
	tr, err := transport.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
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
