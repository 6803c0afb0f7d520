// Command bareloop is the yardstick for hopbench's load generator: the
// plainest possible loop of calls, as many goroutines as clients, counting
// replies and timing each (its JSON says rps and p50_us).
// bench/compare.sh runs it beside hopbench load and ghz against the same
// node, bench/pairs.sh runs it as a pair with its own responder (-serve)
// beside hopbench's node and load; it is not part of hopbench.
//
//	bareloop -stack grpc|rest|nats|amqp|kafka -target ADDR -clients 64 -duration 10s
//	bareloop -stack grpc|rest|nats|amqp|kafka -target ADDR -serve   (the bare responder)
//	bareloop -stack connect|grpcweb|connect-grpc|grpc-stream|ws|rest-h3 -target ADDR -serve [-ca-out FILE]
//	         (the bare responders of today's stacks, for bench/latency1.sh: hopbench load calls them)
//	bareloop -print-json   (the gRPC request as JSON, for ghz -d)
//	bareloop -print-rest   (the REST request's body, for vegeta and wrk)
//
// The broker stacks' ADDR is hopbench's: nats://127.0.0.1:4222/SUBJECT,
// amqp://127.0.0.1:5672/QUEUE, kafka://127.0.0.1:9092/TOPIC.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/stats"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

func main() {
	stack := flag.String("stack", "grpc", stacks+" (rest is rest+json over HTTP/1.1; the others carry the same JSON)")
	target := flag.String("target", "127.0.0.1:7070", "node address")
	clients := flag.Int("clients", 64, "concurrent callers")
	duration := flag.Duration("duration", 10*time.Second, "how long to call")
	count := flag.Int("count", 10, "characters of text echoed")
	printJSON := flag.Bool("print-json", false, "print the gRPC request as JSON and exit")
	printREST := flag.Bool("print-rest", false, "print the REST request's body (JSON) and exit")
	serveIt := flag.Bool("serve", false, "be the bare responder of the stack on -target until SIGINT")
	flag.Parse()
	if *serveIt {
		if err := serve(*stack, *target); err != nil {
			fail(err)
		}
		return
	}
	m, _ := payload.Lookup("text")
	msg, err := m.Message(*count, payload.DefaultSeed)
	if err != nil {
		fail(err)
	}
	text := msg.(*pb.Text)
	if *printJSON {
		b, _ := protojson.Marshal(&pb.Payload{Body: &pb.Payload_Text{Text: text}})
		fmt.Println(string(b))
		return
	}
	if *printREST {
		body, err := restBody(text)
		if err != nil {
			fail(err)
		}
		fmt.Println(string(body))
		return
	}
	closeIt, call, err := dial(*stack, *target, *clients, *duration, text)
	if err != nil {
		fail(err)
	}
	defer closeIt()
	requests, failed, rps, p50 := loop(call, *clients, *duration)
	fmt.Printf("{\"requests\": %d, \"errors\": %d, \"rps\": %.1f, \"p50_us\": %d}\n", requests, failed, rps, p50)
}

// stacks are the stacks bareloop calls and serves.
const stacks = "grpc, rest, nats, amqp or kafka"

// callBound is how long after the run's end a call on a broker may still
// wait for its reply before it fails: hopbench load's call timeout.
const callBound = 30 * time.Second

// dial connects a caller of stack to target and returns one echo of text
// on it, and what closes it; calls share the connection, as hopbench
// load's workers share its one client, except rest's, which keeps one for
// each of the clients as HTTP/1.1 needs.
func dial(stack, target string, clients int, d time.Duration, text *pb.Text) (func(), func(context.Context) error, error) {
	if stack == "grpc" {
		conn, call := grpcCall(target, text)
		return func() { conn.Close() }, call, nil
	}
	body, err := restBody(text)
	if err != nil {
		return nil, nil, err
	}
	switch stack {
	case "rest":
		return func() {}, restCall(target, clients, body), nil
	case "nats":
		nc, call := natsCall(target, body)
		return nc.Close, call, nil
	case "amqp":
		closeIt, call := amqpCall(target, body, d+callBound)
		return closeIt, call, nil
	case "kafka":
		closeIt, call := kafkaCall(target, body, d+callBound)
		return closeIt, call, nil
	}
	return nil, nil, fmt.Errorf("stack %q: want %s", stack, stacks)
}

// grpcCall is one gRPC echo of text to target, over one connection.
func grpcCall(target string, text *pb.Text) (*grpc.ClientConn, func(context.Context) error) {
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fail(err)
	}
	client := pb.NewHopClient(conn)
	req := &pb.Payload{Body: &pb.Payload_Text{Text: text}}
	return conn, func(ctx context.Context) error { _, err := client.Echo(ctx, req); return err }
}

// restCall is one REST echo of body, text as JSON, over HTTP/1.1 to
// target, with a connection kept for each of the clients.
func restCall(target string, clients int, body []byte) func(context.Context) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	url := "http://" + target + "/v1/text/echo"
	return func(ctx context.Context) error {
		hreq, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		hreq.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(hreq)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode/100 != 2 {
			err = fmt.Errorf("status %s", resp.Status)
		}
		return err
	}
}

// restBody is the REST echo's request body: text in hopbench's JSON.
func restBody(text *pb.Text) ([]byte, error) {
	jsonCodec, _ := codec.Lookup("json")
	return jsonCodec.Marshal(text)
}

// loop makes calls from clients goroutines, each calling again as soon as
// a call returns, for d; it returns the calls made, those that failed, the
// replies per second and the median time a call that succeeded took, in
// hopbench's histogram geometry.
func loop(call func(context.Context) error, clients int, d time.Duration) (requests, failed int64, rps float64, p50 int64) {
	var ok, bad atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	hists := make([]*hdrhistogram.Histogram, clients)
	start := time.Now()
	for i := range clients {
		hists[i] = stats.NewHistogram()
		wg.Add(1)
		go func(h *hdrhistogram.Histogram) {
			defer wg.Done()
			for time.Now().Before(deadline) {
				t := time.Now()
				if call(context.Background()) == nil {
					stats.Record(h, time.Since(t))
					ok.Add(1)
				} else {
					bad.Add(1)
				}
			}
		}(hists[i])
	}
	wg.Wait()
	elapsed := time.Since(start)
	all := stats.NewHistogram()
	for _, h := range hists {
		all.Merge(h)
	}
	return ok.Load() + bad.Load(), bad.Load(), float64(ok.Load()) / elapsed.Seconds(), all.ValueAtQuantile(50)
}

// fail says err and exits.
func fail(err error) {
	fmt.Fprintln(os.Stderr, "bareloop:", err)
	os.Exit(1)
}
