package graphql

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/payload"
	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/graphql/generated"
)

// replyLimit refuses, before anything runs, an operation whose reply would
// pass the node's body limit: each alias of get(count: 3990) may be under
// it while 250 of them are 250 times over. An operation's cost is the
// bytes every get and echo it asks for could reply, summed over its
// aliases, fragments and inline fragments by gqlgen's complexity walk, on a
// schema whose complexity functions return bytes.
type replyLimit struct {
	bounds *sync.Map // model name -> *payload.SizeBound in JSON
	limit  int
}

var _ interface {
	graphql.OperationContextMutator
	graphql.HandlerExtension
} = replyLimit{}

func newReplyLimit(limit int) replyLimit { return replyLimit{bounds: new(sync.Map), limit: limit} }

func (replyLimit) ExtensionName() string { return "ReplyLimit" }

func (replyLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (r replyLimit) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil {
		return nil // gqlgen refuses it next, naming the operation
	}
	// The walk is the operation's own: an echo's estimate encodes its
	// input, and once the sum is over the limit the rest are estimated
	// without encoding, so a thousand aliases of one large variable cost
	// the node one limit's worth of encoding, not a thousand.
	w := &costWalk{replyLimit: r}
	cfg := generated.Config{}
	cfg.Complexity.Query.Get = func(_ int, model string, count int) int { return w.add(w.items(model, count)) }
	cfg.Complexity.Mutation.Echo = func(_ int, input generated.PayloadInput) int { return w.add(w.echo(input)) }
	cost := complexity.Calculate(ctx, generated.NewExecutableSchema(cfg), op, opCtx.Variables)
	if cost <= r.limit {
		return nil
	}
	err := gqlerror.Errorf("the query's reply could be %d bytes (its cost: the size bound of every get and the size of every echo, summed over its aliases and fragments), over the node's limit of %d bytes (--max-bytes)", cost, r.limit)
	err.Extensions = map[string]any{"code": transport.CodeTooLarge.String()}
	return err
}

// costWalk is one operation's cost as gqlgen's walk sums it.
type costWalk struct {
	replyLimit
	sum int
}

func (w *costWalk) add(cost int) int {
	if cost > 1<<62-w.sum {
		w.sum = 1 << 62 // saturated: both are at most 1<<62
	} else {
		w.sum += cost
	}
	return cost
}

// items is the JSON size of count items of model as the node bounds a
// get's reply to refuse a single one too large (node.checkReplySize): the
// model's payload.SizeBound in JSON, measured once. An unknown model or
// a negative count costs nothing here: the node refuses it.
func (w *costWalk) items(model string, count int) int {
	m, err := payload.Lookup(model)
	if err != nil || count <= 0 {
		return 0
	}
	bound, ok := w.bounds.Load(model)
	if !ok {
		json, _ := codec.Lookup("json")
		b, err := m.SizeBound(json.Marshal)
		if err != nil {
			return 0
		}
		bound, _ = w.bounds.LoadOrStore(model, b)
	}
	return int(min(bound.(*payload.SizeBound).Size(count), 1<<62))
}

// echo is the estimated size of an echo's reply, its input: its JSON
// encoding while the operation is under the limit (the input is at most a
// body's worth); past it, by its items as for a get or by its protobuf
// size when that is larger (an item holding a megabyte string is one item,
// and its JSON is at least that megabyte).
func (w *costWalk) echo(input generated.PayloadInput) int {
	model, msg, err := unpack(input)
	if err != nil {
		return 0
	}
	if w.sum <= w.limit {
		json, _ := codec.Lookup("json")
		if b, err := json.Marshal(msg); err == nil {
			return len(b)
		}
	}
	m, err := payload.Lookup(model)
	if err != nil {
		return 0
	}
	return max(w.items(model, m.Len(msg)), proto.Size(msg))
}
