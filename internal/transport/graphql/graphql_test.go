package graphql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/transport"
	_ "github.com/hopbench/hopbench/internal/transport/graphql"
	"github.com/hopbench/hopbench/internal/transport/transporttest"
	"github.com/hopbench/hopbench/internal/userschema"
)

func TestConformance(t *testing.T) {
	b, err := certs.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []transporttest.Variant{
		{Name: "h1", Large: true},
		{Name: "h2c", Config: transport.Config{HTTP2: true}},
		{Name: "h2+mtls", Config: transport.Config{HTTP2: true, ServerTLS: b.Server(true), ClientTLS: b.Client(true)}},
		{Name: "h1/emulated-network", Network: transporttest.Emulated},
	} {
		v.Transport = "graphql"
		transporttest.Run(t, v)
	}
}

func TestRefusesWhatItCannotCarry(t *testing.T) {
	transporttest.CheckRefusals(t, "graphql", []transporttest.Refusal{
		{Config: transport.Config{Codec: "proto"}, Want: `graphql carries json bodies only, not "proto"`},
		{Config: transport.Config{Compression: "gzip"}, Want: `graphql compresses no bodies, not "gzip"`},
	})
}

// Introspection answers by default, as GraphQL tools expect, and is
// refused with introspection=false; an unknown option is refused.
func TestIntrospectionIsOnUnlessTurnedOff(t *testing.T) {
	tr, _ := transport.Lookup("graphql")
	h := transport.Handler{Message: func(context.Context, *transport.MessageRequest) (proto.Message, error) { return nil, nil }}
	query := func(opts map[string]string) (int, string) {
		t.Helper()
		srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{Options: opts}, h)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		resp, err := http.Post("http://"+srv.Addr()+"/graphql", "application/json", strings.NewReader(`{"query":"{ __schema { queryType { name } } }"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := query(nil); code != http.StatusOK || !strings.Contains(body, `"queryType":{"name":"Query"}`) {
		t.Errorf("introspection by default: %d %s", code, body)
	}
	if _, body := query(map[string]string{"introspection": "false"}); !strings.Contains(body, "introspection disabled") {
		t.Errorf("introspection=false answered: %s", body)
	}
	if _, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{Options: map[string]string{"acks": "all"}}, h); err == nil || !strings.Contains(err.Error(), `unknown option "acks"`) {
		t.Errorf("an unknown option: %v", err)
	}
}

// Aliases multiply what a query asks for; their sum is bounded.
func TestAQueryCostsTheItemsItAsksFor(t *testing.T) {
	tr, _ := transport.Lookup("graphql")
	h := transport.Handler{Message: func(context.Context, *transport.MessageRequest) (proto.Message, error) {
		t.Error("an over-cost query reached the service")
		return nil, nil
	}}
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{}, h)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var q strings.Builder
	q.WriteString(`{"query":"{ `)
	for i := range 500 {
		fmt.Fprintf(&q, `a%d: get(model: \"user\", count: 10000) { ... on UserList { users { uid } } } `, i)
	}
	q.WriteString(`}"}`)
	resp, err := http.Post("http://"+srv.Addr()+"/graphql", "application/json", strings.NewReader(q.String()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), "complexity 5000000, which exceeds the limit of 1000000") {
		t.Errorf("500 aliases of 10 000 users: %s", b)
	}
}

// A body that is not a GraphQL request in JSON is refused with what is
// wrong and a short quote of it, not the whole of it: a 1 MB body of
// garbage came back in full in the error.
func TestAnUndecodableBodyIsNotEchoedWhole(t *testing.T) {
	tr, _ := transport.Lookup("graphql")
	h := transport.Handler{Message: func(context.Context, *transport.MessageRequest) (proto.Message, error) {
		t.Error("an undecodable body reached the service")
		return nil, nil
	}}
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{}, h)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	garbage := strings.Repeat("x", 1<<20)
	resp, err := http.Post("http://"+srv.Addr()+"/graphql", "application/json", strings.NewReader(garbage))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || len(b) > 1024 || !strings.Contains(string(b), "not a GraphQL request in JSON") || !strings.Contains(string(b), "(1048576 bytes)") {
		t.Errorf("status %d, %d bytes: %.300s", resp.StatusCode, len(b), b)
	}
}

// An error quotes at most a short piece of what it names from the
// request: gqlparser quoted a name whole (a field, a token it could not
// parse, an operation, a variable's key), so a request with a 1 MB name
// came back in full. The error still says what is wrong, and a valid
// query still gets its data.
func TestAnErrorQuotesLittleOfALongRequest(t *testing.T) {
	tr, _ := transport.Lookup("graphql")
	h := transport.Handler{Message: func(context.Context, *transport.MessageRequest) (proto.Message, error) { return nil, nil }}
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{MaxBytes: 4 << 20}, h)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	post := func(body string) (int, string) {
		t.Helper()
		resp, err := http.Post("http://"+srv.Addr()+"/graphql", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	long := strings.Repeat("x", 1<<20)
	post1 := `mutation($i: PayloadInput!) { post(input: $i) { count } }`
	for _, c := range []struct{ name, body, says string }{
		{"a token it cannot parse", `{"query":"` + long + `"}`, "Unexpected Name"},
		{"an unknown field", `{"query":"{ ` + long + ` }"}`, "Cannot query field"},
		{"an unknown operation", `{"query":"{ __typename }","operationName":"` + long + `"}`, "not found"},
		{"a variable's unknown key", `{"query":"` + post1 + `","variables":{"i":{"` + long + `":1}}}`, "unknown field"},
	} {
		status, b := post(c.body)
		if status < 400 || status >= 500 || len(b) > 4096 || !strings.Contains(b, c.says) {
			t.Errorf("%s: status %d, %d bytes: %.300s", c.name, status, len(b), b)
		}
	}
	if status, b := post(`{"query":"{ __typename }"}`); status != http.StatusOK || !strings.Contains(b, `"__typename":"Query"`) {
		t.Errorf("a valid query: status %d: %.300s", status, b)
	}
}

// A user's message has a typed schema of its own, which introspection
// shows (objects, input types, enums, not a JSON blob) and, with
// introspection=false, refuses, asked through a fragment too.
func TestAUsersSchemaIsTypedAndFollowsTheIntrospectionOption(t *testing.T) {
	dir := "../../../examples/proto"
	if _, err := userschema.Use(context.Background(), userschema.Source{Files: []string{dir + "/shop/orders.proto"}, ImportPaths: []string{dir}, Message: "shop.Order"}); err != nil {
		t.Fatal(err)
	}
	tr, _ := transport.Lookup("graphql")
	h := transport.Handler{Message: func(context.Context, *transport.MessageRequest) (proto.Message, error) { return nil, nil }}
	ask := func(opts map[string]string, query string) string {
		t.Helper()
		srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{Options: opts}, h)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		body, _ := json.Marshal(map[string]string{"query": query})
		resp, err := http.Post("http://"+srv.Addr()+"/graphql/shop.Order", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	types := ask(nil, `{ __schema { types { name kind } } }`)
	for _, want := range []string{`{"kind":"OBJECT","name":"shop_Order"}`, `{"kind":"INPUT_OBJECT","name":"shop_OrderInput"}`, `{"kind":"ENUM","name":"shop_Status"}`, `{"kind":"OBJECT","name":"common_Money"}`, `{"kind":"SCALAR","name":"ProtoMap"}`} {
		if !strings.Contains(types, want) {
			t.Errorf("the schema's types lack %s: %s", want, types)
		}
	}
	off := map[string]string{"introspection": "false"}
	for _, q := range []string{`{ __schema { queryType { name } } }`, `query { ...F } fragment F on Query { __type(name: "shop_Order") { name } }`} {
		if got := ask(off, q); !strings.Contains(got, "introspection is off") {
			t.Errorf("introspection=false answered %q: %s", q, got)
		}
	}
}
