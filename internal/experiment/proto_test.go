package experiment

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/evolution"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/results"
)

// ordersPayload is examples/proto's shop.Order, 5 to a request.
const ordersPayload = `
payloads:
  - proto:
      files: [../../examples/proto/shop/orders.proto]
      import_paths: [../../examples/proto]
      message: shop.Order
      fill: {repeated: [1, 2], fields: {shop.Order.lines: {size: 3}}}
    counts: [5]
`

// A user's message travels through a chain of two nodes on every stack
// that carries it, with no error, and the run reports Protobuf's bodies
// smaller than JSON's (the proto JSON mapping) for the same messages.
func TestAUsersMessageTravelsAChainOnEveryStackThatCarriesIt(t *testing.T) {
	stacks := "rest, rest+proto, rest+msgpack+gzip, grpc, grpc+gzip, graphql, nats"
	if !testing.Short() {
		stacks += ", amqp+proto, kafka"
	}
	x := &Runner{Bin: hopbenchBin(t), Dir: t.TempDir()}
	recs := runSpec(t, x, "stacks: ["+stacks+"]\ntopologies: [chain:2]\nops: [echo, get, post]\n"+ordersPayload+
		"loads: [{closed: {clients: 2}}]\nduration: 1s\nwarmup: 0s\n")
	body := map[string]int{}
	for _, r := range recs {
		if r.Outcome != results.OutcomeOK || r.Errors != 0 || r.Requests == 0 {
			t.Errorf("%s %s: outcome %s (%s), %d errors in %d requests", r.Stack, r.Op, r.Outcome, r.Reason, r.Errors, r.Requests)
		}
		if r.Model != "shop.Order" {
			t.Errorf("model %q, want shop.Order", r.Model)
		}
		if r.Op == "echo" {
			body[r.Stack] = r.RequestBodyBytes
		}
	}
	if body["rest+proto"] == 0 || body["rest+proto"] >= body["rest"] {
		t.Errorf("request bodies: Protobuf %d bytes, JSON %d: want Protobuf's smaller, measured", body["rest+proto"], body["rest"])
	}
}

func TestAProtoPayloadIsRefusedWhereItCannotGoYet(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"stacks: [rest+json-fast]\n", "json-fast encodes Go structs generated at build time"},
		{"stacks: [rest]\nhosts: [{name: a, agent: \"10.0.0.5:7070\"}]\nschemas: [\"v2,v1\"]\n" +
			strings.Replace(ordersPayload, "    counts:", "    proto_v2: {files: [../../examples/proto-v2/shop/orders.proto], import_paths: [../../examples/proto-v2]}\n    counts:", 1),
			"hosts of their own do not take your message's version 2 yet"},
		{"stacks: [rest]\n" + strings.Replace(ordersPayload, "message: shop.Order", "message: shop.Ordr", 1), `no message "shop.Ordr"`},
		{"stacks: [rest]\n" + strings.Replace(ordersPayload, "counts: [5]", "counts: [5000000]", 1), "over the 67108864 bytes a body may have"},
	} {
		spec := c.spec + "loads: [{closed: {clients: 1}}]\n"
		if !strings.Contains(c.spec, "payloads") {
			spec += ordersPayload
		}
		_, err := Parse([]byte(spec))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.spec, err, c.want)
		}
	}
}

// examples/orders.yaml, the spec README and docs/your-messages.md run, is
// valid from the repository's root, as they run it.
func TestTheOrdersExampleSpecIsValid(t *testing.T) {
	t.Chdir("../..")
	s, err := ReadFile("examples/orders.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs := s.Runs()
	if len(runs) != 9 || runs[0].Model != "shop.Order" || runs[0].Proto == nil {
		t.Fatalf("%d runs of %q, want 9 of shop.Order with its proto", len(runs), runs[0].Model)
	}
}

// A spec with your message's two versions and schemas sends each change
// through live chains of mixed versions before its load (each node
// decoding into its own version), and what comes back is what the same
// change gives in the same codec in process (hopbench evolve's).
func TestAUsersSchemaChangeIsTriedThroughLiveNodesOfBothVersions(t *testing.T) {
	x := &Runner{Bin: hopbenchBin(t), Dir: t.TempDir()}
	recs := runSpec(t, x, "stacks: [rest, rest+proto]\nschemas: [\"v2,v1,v2\", \"v1,v2,v1\"]\n"+ordersPayload+
		"    proto_v2: {files: [../../examples/proto-v2/shop/orders.proto], import_paths: [../../examples/proto-v2]}\n"+
		"loads: [{closed: {clients: 2}}]\nduration: 1s\nwarmup: 0s\n")
	pair := evolution.SchemaFor("shop.Order")
	if len(pair.Changes()) != 4 {
		t.Fatalf("the spec registered %d changes of shop.Order, want the examples' 4", len(pair.Changes()))
	}
	for _, r := range recs {
		if r.Outcome != results.OutcomeOK || r.Errors != 0 {
			t.Errorf("%s %s: outcome %s (%s), %d errors", r.Stack, r.Schema, r.Outcome, r.Reason, r.Errors)
		}
		c := map[string]string{"rest": "json", "rest+proto": "proto"}[r.Stack]
		cc, _ := codec.Lookup(c)
		p, _ := evolution.ParsePath(r.Schema)
		want, err := evolution.MatrixIn(pair, []codec.Codec{cc}, []evolution.Path{p}, 3, payload.DefaultSeed)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, live := range r.Evolution {
			for _, w := range want {
				if live.Count == 3 && live.Change == w.Change {
					got++
					if live.Outcome != w.Outcome || live.Others != w.Others {
						t.Errorf("%s over %s, %s: live %s (others %s: %s), in process %s (others %s)", r.Stack, r.Schema, w.Change, live.Outcome, live.Others, live.Detail, w.Outcome, w.Others)
					}
				}
			}
		}
		if got != len(want) {
			t.Errorf("%s over %s: %d of the %d changes tried live", r.Stack, r.Schema, got, len(want))
		}
	}
}
