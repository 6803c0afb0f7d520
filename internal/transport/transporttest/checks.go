package transporttest

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/transport"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

// The checks a stack runs beside the conformance suite: refusals of what
// it cannot carry, and replicas of a broker stack sharing a service.

// Refusal is a Config a transport must refuse, and what its error says.
type Refusal struct {
	Config transport.Config
	Want   string
}

// CheckRefusals checks that the transport refuses each configuration at
// Listen and at Dial, before anything runs, with an error saying why.
func CheckRefusals(t *testing.T, name string, refusals []Refusal) {
	t.Helper()
	tr, err := transport.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refusals {
		_, err := transport.Listen(context.Background(), tr, "127.0.0.1:0", r.Config, transport.Handler{})
		if err == nil || !strings.Contains(err.Error(), r.Want) {
			t.Errorf("%s Listen(%+v) = %v, want %q", name, r.Config, err, r.Want)
		}
		_, err = transport.Dial(context.Background(), tr, "127.0.0.1:1", r.Config)
		if err == nil || !strings.Contains(err.Error(), r.Want) {
			t.Errorf("%s Dial(%+v) = %v, want %q", name, r.Config, err, r.Want)
		}
	}
}

// CheckReplicas starts two servers of a broker stack on one address (the
// same queue, topic or subject) and checks that calls to it all succeed and
// that both servers take a share of them, as replicas of a service do.
func CheckReplicas(t *testing.T, name, addr string, cfg transport.Config) {
	t.Helper()
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	tr, err := transport.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var served [2]atomic.Int64
	for i := range served {
		h := func(ctx context.Context, req *transport.Request) ([]byte, error) {
			served[i].Add(1)
			return handler(ctx, req)
		}
		srv, err := tr.Listen(ctx, addr, cfg, transport.Handler{Bytes: h})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
	}
	cl, err := tr.Dial(ctx, addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	e := &env{client: cl}
	e.codec, _ = codec.Lookup(cmp.Or(cfg.Codec, tr.Caps().Codecs[0]))
	e.z, _ = codec.LookupCompression(cfg.Compression)
	const calls, concurrent = 400, 8
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for w := range concurrent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < calls; i += concurrent {
				want := &pb.Text{Text: "replica call " + strconv.Itoa(i)}
				got, err := e.call(ctx, transport.OpEcho, "text", 0, want)
				var msg pb.Text
				if err == nil {
					err = codec.Compressed(e.codec, e.z, codec.DefaultMaxBytes).Unmarshal(got, &msg)
				}
				if err == nil && msg.Text != want.Text {
					err = fmt.Errorf("got another call's reply")
				}
				if err != nil {
					errs <- fmt.Errorf("call %d: %w", i, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	a, b := served[0].Load(), served[1].Load()
	if a == 0 || b == 0 || a+b < calls {
		t.Errorf("replicas served %d and %d of %d calls; want both a share", a, b, calls)
	}
	t.Logf("replicas served %d and %d of %d calls", a, b, calls)
}
