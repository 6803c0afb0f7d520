package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"

	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// serve is the bare responder of stack on target until SIGINT or SIGTERM:
// the plainest echo the stack's library makes, to measure hopbench's node
// against (the bare pair is this responder and this command's caller).
func serve(stack, target string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch stack {
	case "rest":
		return serveREST(ctx, target)
	case "grpc":
		return serveGRPC(ctx, target)
	case "nats":
		return serveNATS(ctx, target)
	}
	return fmt.Errorf("stack %q: want grpc, rest or nats", stack)
}

// serveREST echoes each POST's body on /v1/text/echo with net/http.
func serveREST(ctx context.Context, addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/text/echo", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		return err
	}
	return nil
}

type echoServer struct{ pb.UnimplementedHopServer }

func (echoServer) Echo(_ context.Context, p *pb.Payload) (*pb.Payload, error) { return p, nil }

// serveGRPC answers Hop/Echo with its request, with grpc-go.
func serveGRPC(ctx context.Context, addr string) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s := grpc.NewServer()
	pb.RegisterHopServer(s, echoServer{})
	go func() { <-ctx.Done(); s.Stop() }()
	return s.Serve(lis)
}

// serveNATS answers each request on the subject with its data, in a queue
// group named after the subject, as hopbench's nats node subscribes.
func serveNATS(ctx context.Context, target string) error {
	url, subject := natsTarget(target)
	nc, err := nats.Connect(url, nats.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	if _, err := nc.QueueSubscribe(subject, subject, func(m *nats.Msg) { m.Respond(m.Data) }); err != nil {
		return err
	}
	if err := nc.Flush(); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// natsCall is one request on the subject, each with its reply inbox
// multiplexed by nats.go over one connection, as hopbench's nats client.
func natsCall(target string, body []byte) (*nats.Conn, func(context.Context) error) {
	url, subject := natsTarget(target)
	nc, err := nats.Connect(url, nats.NoReconnect())
	if err != nil {
		fail(err)
	}
	return nc, func(ctx context.Context) error {
		_, err := nc.RequestWithContext(ctx, subject, body)
		return err
	}
}

// natsTarget splits nats://HOST:PORT/SUBJECT.
func natsTarget(target string) (url, subject string) {
	rest := strings.TrimPrefix(target, "nats://")
	host, subject, _ := strings.Cut(rest, "/")
	if subject == "" {
		subject = "hopbench-bare"
	}
	return "nats://" + host, subject
}
