package main_test

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/userschema"
)

// A lone hopbench node --runtime jvm --proto serves your message: the get
// reply of its first standard count is the Go generator's message of that
// fill. Its seeds are cached by what they hold: the same message with
// another fill gets a file of its own, which a node starting beside the
// first cannot overwrite.
func TestALoneJVMNodeServesYourMessageFromItsOwnFill(t *testing.T) {
	needJVM(t)
	env, _, cache := privateTemp(t)
	js, _ := codec.Lookup("json")
	var first proto.Message
	for _, fill := range []string{`{"strings": [3, 3]}`, `{"strings": [40, 40]}`} {
		src := userschema.Source{Files: []string{"../../examples/proto/shop/orders.proto"}, ImportPaths: []string{"../../examples/proto"}, Message: "shop.Order"}
		f, err := userschema.ParseFill([]byte(fill), "fill")
		if err != nil {
			t.Fatal(err)
		}
		src.Fill = &f
		m, err := userschema.Use(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := m.Message(1, payload.DefaultSeed)
		_, ready := startAnnounced(t, env, "node", "--runtime", "jvm", "--stack", "rest",
			"--proto", src.Files[0], "--proto-path", src.ImportPaths[0], "--message", "shop.Order", "--proto-fill", fill)
		resp, err := http.Get("http://" + ready.Addr + "/v1/shop.Order?count=1")
		if err != nil {
			t.Fatal(err)
		}
		got := m.New()
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || js.Unmarshal(body, got) != nil || !proto.Equal(got, want) {
			t.Errorf("fill %s: get of shop.Order×1: %v %s; want the Go generator's message of that fill", fill, err, body)
		}
		if first != nil && proto.Equal(got, first) {
			t.Errorf("fill %s: the reply is the first fill's", fill)
		}
		first = got
	}
	if seeds, _ := filepath.Glob(filepath.Join(cache, "hopbench", "jvm-seeds", "*.bin")); len(seeds) != 2 {
		t.Errorf("the seeds cache holds %v: want a file for each fill", seeds)
	}
}
