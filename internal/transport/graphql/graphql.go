// Package graphql is the GraphQL stack: a schema-first server on gqlgen
// (schema/graphql/hopbench.graphql) at POST /graphql, JSON over HTTP as
// GraphQL clients expect. get is a query, post and echo are mutations; the
// types mirror the payload models field for field, bound to the same
// generated structs every other stack carries.
//
// GraphQL decodes variables and encodes the selected fields itself, so this
// stack serves the node's message-level handler: its decode and encode cost
// is in the latency a client sees, not in the node's decode/encode split.
package graphql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	gqltransport "github.com/99designs/gqlgen/graphql/handler/transport"
	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/graphql/generated"
	"github.com/hopbench/hopbench/internal/transport/rest"
	pb "github.com/hopbench/hopbench/schema/hopbench/v1"
)

func init() { transport.Register(Transport{}) }

// Transport is the graphql stack.
type Transport struct{}

func (Transport) Name() string { return "graphql" }

// Caps: JSON, uncompressed, decoded by gqlgen's resolvers into v1's
// messages; HTTP POSTs, HTTP/2 when the run asks (an L7 proxy carries
// them).
func (Transport) Caps() transport.Caps {
	return transport.Caps{
		Codecs:        []string{"json"},
		Compressions:  []string{},
		DecodesItself: true,
		HTTP:          transport.HTTPEither,
		Options: []transport.Option{
			{Name: "introspection", Default: "true", Help: "answer introspection queries (__schema, __type), which GraphQL tools and IDEs rely on", Check: transport.Bool},
		},
		Traits: transport.Traits{
			Schema: "a typed schema the client queries: fields are added and deprecated in place, and clients ask only for what they read",
			Notes:  []string{"one query gathers data that would take several REST calls, shaped as the client needs it", "resolving and serializing each field costs CPU on every call"},
		},
	}
}

// MaxQueryItems bounds the items one GraphQL request may ask for, over all
// its aliases; the estimated bytes of its reply are bounded too, by the
// node's body limit (see replyLimit).
const MaxQueryItems = 1_000_000

// Listen serves h.Message at POST /graphql on addr.
func (t Transport) Listen(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Server, error) {
	opts, err := transport.ResolveOptions(t, cfg.Options)
	if err != nil {
		return nil, err
	}
	if h.Message == nil {
		return nil, errors.New("graphql: the node offers no message-level handler, and GraphQL decodes requests itself, into the payload schema's v1 messages")
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("graphql: listen on %s: %w", addr, err)
	}
	gcfg := generated.Config{Resolvers: &resolver{serve: h.Message}}
	// A query's cost is the items it asks for, summed over its aliases:
	// 500 aliases of get(count: 10000) is one request for 5 000 000.
	gcfg.Complexity.Query.Get = func(_ int, _ string, count int) int { return max(count, 1) }
	gql := handler.New(generated.NewExecutableSchema(gcfg))
	gql.SetParserTokenLimit(MaxQueryTokens)
	gql.Use(queryShape{})
	gql.Use(extension.FixedComplexityLimit(MaxQueryItems))
	gql.Use(newReplyLimit(cfg.MaxBytesOrDefault()))
	gql.AddTransport(gqltransport.POST{})
	gql.SetErrorPresenter(presentError)
	introspection, _ := strconv.ParseBool(opts["introspection"])
	if introspection {
		gql.Use(extension.Introspection{})
	}
	mux := http.NewServeMux()
	mux.Handle("POST /graphql", limitBody(cfg.MaxBytesOrDefault(), gql))
	if err := userRoutes(mux, cfg.MaxBytesOrDefault(), introspection, h.Message); err != nil {
		l.Close()
		return nil, err
	}
	srv := &http.Server{
		Handler:   mux,
		TLSConfig: cfg.ServerTLS,
		Protocols: rest.Protocols(cfg),
	}
	return rest.ServeHTTP(rest.Bound(l, srv, cfg.Conns), srv), nil
}

// limitBody refuses a body above limit with 413 and a GraphQL error naming it.
func limitBody(limit int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > int64(limit) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			fmt.Fprintf(w, `{"errors":[{"message":"too large: request body of %d bytes exceeds the limit of %d bytes","extensions":{"code":"too large"}}]}`, r.ContentLength, limit)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, int64(limit))
		next.ServeHTTP(w, r)
	})
}

// resolver maps the three operations onto the message-level handler.
type resolver struct {
	serve func(context.Context, *transport.MessageRequest) (proto.Message, error)
}

func (r *resolver) Query() generated.QueryResolver       { return queryResolver{r} }
func (r *resolver) Mutation() generated.MutationResolver { return mutationResolver{r} }

type queryResolver struct{ *resolver }

func (q queryResolver) Get(ctx context.Context, model string, count int) (proto.Message, error) {
	return q.serve(ctx, &transport.MessageRequest{Op: transport.OpGet, Model: model, Count: count})
}

type mutationResolver struct{ *resolver }

func (m mutationResolver) Post(ctx context.Context, input generated.PayloadInput) (*pb.Ack, error) {
	reply, err := m.call(ctx, transport.OpPost, input)
	if err != nil {
		return nil, err
	}
	ack, ok := reply.(*pb.Ack)
	if !ok {
		return nil, transport.Errorf(transport.CodeInternal, "post replied with %T, not an Ack", reply)
	}
	return ack, nil
}

func (m mutationResolver) Echo(ctx context.Context, input generated.PayloadInput) (proto.Message, error) {
	return m.call(ctx, transport.OpEcho, input)
}

func (m mutationResolver) call(ctx context.Context, op transport.Op, input generated.PayloadInput) (proto.Message, error) {
	model, body, err := unpack(input)
	if err != nil {
		return nil, err
	}
	return m.serve(ctx, &transport.MessageRequest{Op: op, Model: model, Body: body})
}

// unpack returns the one model set in a PayloadInput; @oneOf makes the
// server refuse inputs with more or fewer, so this only names it.
func unpack(input generated.PayloadInput) (string, proto.Message, error) {
	v := reflect.ValueOf(input)
	for i := range v.NumField() {
		if f := v.Field(i); !f.IsNil() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			return name, f.Interface().(proto.Message), nil
		}
	}
	return "", nil, transport.Errorf(transport.CodeBadRequest, "PayloadInput sets no model")
}
