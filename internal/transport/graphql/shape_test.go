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

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/userschema"
)

// ask posts query to path of a graphql server with a body limit of
// maxBytes, and returns the reply.
func ask(t *testing.T, maxBytes int, path, query string) string {
	t.Helper()
	tr, _ := transport.Lookup("graphql")
	h := transport.Handler{Message: func(context.Context, *transport.MessageRequest) (proto.Message, error) { return nil, nil }}
	srv, err := tr.Listen(context.Background(), "127.0.0.1:0", transport.Config{MaxBytes: maxBytes}, h)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body, _ := json.Marshal(map[string]string{"query": query})
	resp, err := http.Post("http://"+srv.Addr()+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func manyOf(n int, field string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	return b.String() + " }"
}

func nested(depth int) string {
	return "{ __schema { types { fields { type " + strings.Repeat("{ ofType ", depth) + "{ name }" + strings.Repeat(" }", depth) + " } } } }"
}

// A query past the shape bounds is refused before it runs, on the
// built-in schema and a user's message's alike: a 150-deep introspection
// was answered, and 5 000 aliases of __schema took a node to 1.95 GB.
// Within them, the standard introspection's depth is answered.
func TestAQueryPastItsShapeIsRefused(t *testing.T) {
	dir := "../../../examples/proto"
	if _, err := userschema.Use(context.Background(), userschema.Source{Files: []string{dir + "/shop/orders.proto"}, ImportPaths: []string{dir}, Message: "shop.Order"}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/graphql", "/graphql/shop.Order"} {
		for _, c := range []struct{ name, query, says string }{
			{"150 deep", nested(150), "deeper than 32 levels"},
			{"200 aliases of __schema, each 102 fields through fragments", manyOf(200, "__schema { ...A }") +
				" fragment A on __Schema { types {" + strings.Repeat(" ...B", 20) + " } } fragment B on __Type { name kind fields { name } }", "more than 10000 fields"},
			{"24 000 tokens", manyOf(8000, "__typename"), "exceeded token limit of 20000"},
		} {
			if got := ask(t, 1<<20, path, c.query); !strings.Contains(got, c.says) {
				t.Errorf("%s %s: %.300s; want it refused saying %q", path, c.name, got, c.says)
			}
		}
		if got := ask(t, 1<<20, path, nested(8)); strings.Contains(got, "errors") {
			t.Errorf("%s, 12 deep: %.300s; want it answered", path, got)
		}
	}
}

// A reply lists at most 100 errors and counts the rest.
func TestAReplysErrorsAreBounded(t *testing.T) {
	for _, path := range []string{"/graphql", "/graphql/shop.Order"} {
		got := ask(t, 1<<20, path, manyOf(1000, "nope"))
		var r struct{ Errors []struct{ Message string } }
		if err := json.Unmarshal([]byte(got), &r); err != nil || len(r.Errors) != 101 || !strings.Contains(r.Errors[100].Message, "and 900 more errors") {
			t.Errorf("%s, 1 000 unknown fields: %d errors (%v), last %+v", path, len(r.Errors), err, r.Errors[len(r.Errors)-1:])
		}
	}
}

// A user's message's gets are bounded over the whole query: each of 100
// aliases of get(count: 759) was under the node's limit, together 25.6 MB.
func TestAUsersGetsAreBoundedOverTheWholeQuery(t *testing.T) {
	dir := "../../../examples/proto"
	if _, err := userschema.Use(context.Background(), userschema.Source{Files: []string{dir + "/shop/orders.proto"}, ImportPaths: []string{dir}, Message: "shop.Order"}); err != nil {
		t.Fatal(err)
	}
	const one = "get(count: 100) { items { id } }"
	if got := ask(t, 1<<20, "/graphql/shop.Order", manyOf(100, one)); !strings.Contains(got, "over the node's limit of 1048576 bytes") {
		t.Errorf("100 aliases of a get: %.300s; want them refused together", got)
	}
	if got := ask(t, 1<<20, "/graphql/shop.Order", "query { ...F ...F } fragment F on Query { a: "+one+" }"); strings.Contains(got, "over the node's limit") {
		t.Errorf("one get: %.300s; want it let through", got)
	}
}
