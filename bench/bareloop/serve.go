package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"

	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// serve is the bare responder of stack on target until SIGINT or SIGTERM:
// the plainest echo the stack's library makes, to measure hopbench's node
// against (the bare pair is this responder and this command's caller). It
// prints "bareloop: STACK serving on TARGET" on stdout once it serves, so
// that a script knows when to start calling.
func serve(stack, target string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ready := func() { fmt.Printf("bareloop: %s serving on %s\n", stack, target) }
	switch stack {
	case "rest":
		return serveREST(ctx, target, ready)
	case "grpc":
		return serveGRPC(ctx, target, ready)
	case "nats":
		return serveNATS(ctx, target, ready)
	case "amqp":
		return serveAMQP(ctx, target, ready)
	case "kafka":
		return serveKafka(ctx, target, ready)
	}
	if f, ok := serveToday[stack]; ok {
		return f(ctx, target, ready)
	}
	return fmt.Errorf("stack %q: want %s", stack, stacks)
}

// echoBody answers a POST with its body, in its content type.
func echoBody(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", r.Header.Get("Content-Type"))
	w.Write(body)
}

// serveREST echoes each POST's body on /v1/text/echo with net/http.
func serveREST(ctx context.Context, addr string, ready func()) error {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/text/echo", echoBody)
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	ready()
	if err := srv.Serve(lis); err != http.ErrServerClosed {
		return err
	}
	return nil
}

type echoServer struct{ pb.UnimplementedHopServer }

func (echoServer) Echo(_ context.Context, p *pb.Payload) (*pb.Payload, error) { return p, nil }

// serveGRPC answers Hop/Echo with its request, with grpc-go.
func serveGRPC(ctx context.Context, addr string, ready func()) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s := grpc.NewServer()
	pb.RegisterHopServer(s, echoServer{})
	go func() { <-ctx.Done(); s.Stop() }()
	ready()
	return s.Serve(lis)
}

// serveNATS answers each request on the subject with its data, in a queue
// group named after the subject, as hopbench's nats node subscribes.
func serveNATS(ctx context.Context, target string, ready func()) error {
	host, subject := splitTarget(target, "nats")
	nc, err := nats.Connect("nats://"+host, nats.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	respond := func(m *nats.Msg) { m.Respond(m.Data) }
	if *withHeaders {
		respond = func(m *nats.Msg) {
			m.RespondMsg(&nats.Msg{Header: nats.Header{contentType: m.Header[contentType]}, Data: m.Data})
		}
	}
	if _, err := nc.QueueSubscribe(subject, subject, respond); err != nil {
		return err
	}
	if err := nc.Flush(); err != nil {
		return err
	}
	ready()
	<-ctx.Done()
	return nil
}

// natsCall is one request on the subject, each with its reply inbox
// multiplexed by nats.go over one connection, as hopbench's nats client.
func natsCall(target string, body []byte) (*nats.Conn, func(context.Context) error) {
	host, subject := splitTarget(target, "nats")
	nc, err := nats.Connect("nats://"+host, nats.NoReconnect())
	if err != nil {
		fail(err)
	}
	if *withHeaders {
		return nc, func(ctx context.Context) error {
			header := nats.Header{}
			for k, v := range hopbenchMeta() {
				header.Set(k, v)
			}
			_, err := nc.RequestMsgWithContext(ctx, &nats.Msg{Subject: subject, Header: header, Data: body})
			return err
		}
	}
	return nc, func(ctx context.Context) error {
		_, err := nc.RequestWithContext(ctx, subject, body)
		return err
	}
}

// withHeaders makes a broker pair carry the metadata hopbench's requests
// and replies carry, as message headers (AMQP: a header table and the
// content-type property): how much of the node's gap to the bare pair its
// headers are (bench/PROFILE.md).
var withHeaders = flag.Bool("headers", false, "nats, amqp, kafka: send hopbench's metadata headers with each request and a content type with each reply")

// hopbenchMeta is the metadata of a hopbench echo request
// (brokered.RequestMeta): op, model, content type and deadline.
func hopbenchMeta() map[string]string {
	return map[string]string{
		"hopbench-op":       "echo",
		"hopbench-model":    "text",
		contentType:         "application/json",
		"hopbench-deadline": strconv.FormatInt(time.Now().Add(30*time.Second).UnixNano(), 10),
	}
}

const contentType = "content-type"

// splitTarget splits SCHEME://HOST:PORT/NAME, the form of hopbench's
// broker addresses, into the broker's host:port and the subject, queue or
// topic (hopbench-bare when none is named).
func splitTarget(target, scheme string) (host, name string) {
	rest := strings.TrimPrefix(target, scheme+"://")
	host, name, _ = strings.Cut(rest, "/")
	if name == "" {
		name = "hopbench-bare"
	}
	return host, name
}
