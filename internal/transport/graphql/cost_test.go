package graphql_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/node"
	"github.com/hopbench/hopbench/internal/transport"
)

// graphqlNode starts a real GraphQL node with a body limit of 1 MiB.
func graphqlNode(t *testing.T) string {
	t.Helper()
	st, err := transport.ParseStack("graphql")
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.Start(context.Background(), node.Config{Stack: st, Transport: transport.Config{MaxBytes: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return "http://" + n.Addr() + "/graphql"
}

// post sends query and returns the status and body.
func post(t *testing.T, url, query string) (int, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	resp, err := http.Post(url, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// aliases is n aliases of get(model: "user", count: count), each selecting
// its users through sel.
func aliases(n, count int, sel string) string {
	var q strings.Builder
	for i := range n {
		fmt.Fprintf(&q, "a%d: get(model: \"user\", count: %d) { %s }\n", i, count, sel)
	}
	return q.String()
}

var refusal = regexp.MustCompile(`reply could be (\d+) bytes .* over the node's limit of 1048576 bytes \(--max-bytes\)`)

// 250 aliases of 3990 users are each under a 1 MiB limit and together
// about 150 MB: the query is refused before it runs, however it spells
// its selections (directly, through named fragments, inside inline
// fragments on Query), and the node allocates nowhere near the reply.
func TestAliasesOverTheLimitAreRefusedBeforeTheyRun(t *testing.T) {
	url := graphqlNode(t)
	const users = `... on UserList { users { uid email username profile_picture_url age } }`
	for _, c := range []struct{ name, query string }{
		{"aliases", "{\n" + aliases(250, 3990, users) + "}"},
		{"fragment spread", "query { ...Gets }\nfragment Gets on Query {\n" + aliases(250, 3990, "...Users") + "}\nfragment Users on UserList { users { uid email } }"},
		{"inline fragments", "{ ... on Query { ... on Query {\n" + aliases(250, 3990, users) + "} } }"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.query) > 60_000 {
				t.Fatalf("the query is %d bytes, not about 27 KB", len(c.query))
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			code, body := post(t, url, c.query)
			runtime.ReadMemStats(&after)
			m := refusal.FindSubmatch(body)
			if m == nil {
				t.Fatalf("HTTP %d, %.300s", code, body)
			}
			// A user is about 150 bytes of JSON: 250×3990 of them are
			// over 100 MB, and the cost says about that.
			if cost, _ := strconv.Atoi(string(m[1])); cost < 100<<20 || cost > 400<<20 {
				t.Errorf("cost %d bytes for 250×3990 users", cost)
			}
			if !strings.Contains(string(body), `"code":"too large"`) {
				t.Errorf("the refusal is not classified too large: %s", body)
			}
			// Everything this process allocated while the query was
			// served, client included: a bound on the node's heap growth.
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 100<<20 {
				t.Errorf("serving the refusal allocated %d MB", grew>>20)
			}
		})
	}
}

// Under the limit, aliases are served: the cost refuses sums, not aliases.
func TestAliasesUnderTheLimitAreServed(t *testing.T) {
	url := graphqlNode(t)
	code, body := post(t, url, "{\n"+aliases(4, 500, `... on UserList { users { uid } }`)+"}")
	if code != http.StatusOK || strings.Contains(string(body), `"errors"`) || strings.Count(string(body), `"uid"`) != 4*500 {
		t.Errorf("4 aliases of 500 users: HTTP %d, %.300s", code, body)
	}
}

// An echo's reply is its input: aliases of an echo of one variable are
// each as large as the variable, and are refused like gets, even when the
// input is a single item holding a large string.
func TestEchoAliasesOverTheLimitAreRefused(t *testing.T) {
	url := graphqlNode(t)
	var q strings.Builder
	q.WriteString("mutation($in: PayloadInput!) {\n")
	for i := range 20 {
		fmt.Fprintf(&q, "e%d: echo(input: $in) { ... on Text { text } }\n", i)
	}
	q.WriteString("}")
	body, _ := json.Marshal(map[string]any{
		"query":     q.String(),
		"variables": map[string]any{"in": map[string]any{"text": map[string]any{"text": strings.Repeat("x", 100_000)}}},
	})
	resp, err := http.Post(url, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if m := refusal.FindSubmatch(b); m == nil {
		t.Errorf("20 echoes of 100 kB: HTTP %d, %.300s", resp.StatusCode, b)
	}
}
