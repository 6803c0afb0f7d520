// Command bareloop is the yardstick for hopbench's load generator: the
// plainest possible loop of calls, as many goroutines as clients, counting
// replies and nothing else. bench/compare.sh runs it beside hopbench load
// and ghz against the same node; it is not part of hopbench.
//
//	bareloop -stack grpc|rest -target ADDR -clients 64 -duration 10s
//	bareloop -print-json   (the gRPC request as JSON, for ghz -d)
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

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

func main() {
	stack := flag.String("stack", "grpc", "grpc or rest (rest+json, HTTP/1.1)")
	target := flag.String("target", "127.0.0.1:7070", "node address")
	clients := flag.Int("clients", 64, "concurrent callers")
	duration := flag.Duration("duration", 10*time.Second, "how long to call")
	count := flag.Int("count", 10, "characters of text echoed")
	printJSON := flag.Bool("print-json", false, "print the gRPC request as JSON and exit")
	flag.Parse()
	m, _ := payload.Lookup("text")
	msg, err := m.Message(*count, payload.DefaultSeed)
	if err != nil {
		fail(err)
	}
	req := &pb.Payload{Body: &pb.Payload_Text{Text: msg.(*pb.Text)}}
	if *printJSON {
		b, _ := protojson.Marshal(req)
		fmt.Println(string(b))
		return
	}
	var call func(context.Context) error
	switch *stack {
	case "grpc":
		conn, err := grpc.NewClient(*target, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			fail(err)
		}
		defer conn.Close()
		client := pb.NewHopClient(conn)
		call = func(ctx context.Context) error { _, err := client.Echo(ctx, req); return err }
	case "rest":
		jsonCodec, _ := codec.Lookup("json")
		body, err := jsonCodec.Marshal(msg)
		if err != nil {
			fail(err)
		}
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *clients}}
		url := "http://" + *target + "/v1/text/echo"
		call = func(ctx context.Context) error {
			hreq, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
			hreq.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(hreq)
			if err != nil {
				return err
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return err
		}
	default:
		fail(fmt.Errorf("stack %q: want grpc or rest", *stack))
	}
	var ok, failed atomic.Int64
	deadline := time.Now().Add(*duration)
	var wg sync.WaitGroup
	start := time.Now()
	for range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if call(context.Background()) == nil {
					ok.Add(1)
				} else {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	fmt.Printf("{\"requests\": %d, \"errors\": %d, \"rps\": %.1f}\n", ok.Load()+failed.Load(), failed.Load(), float64(ok.Load())/elapsed.Seconds())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bareloop:", err)
	os.Exit(1)
}
