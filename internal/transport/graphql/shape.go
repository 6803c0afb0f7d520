package graphql

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/hopbench/hopbench/internal/transport"
)

// The bounds of a query's shape, for both schemas (the built-in one and a
// user's message's): hopbench's own queries are far inside them, and
// what is past them (a 150-deep introspection, 5 000 aliases of
// __schema whose reply took a node to 1.95 GB) is refused before it runs.
const (
	// MaxQueryTokens bounds a query's tokens as it is parsed: validation is
	// quadratic in them.
	MaxQueryTokens = 20_000
	// MaxQueryDepth bounds how deep selections nest (the standard
	// introspection query is 13 deep).
	MaxQueryDepth = 32
	// MaxQueryFields bounds the fields a query selects, each alias and
	// each use of a fragment counted.
	MaxQueryFields = 10_000
	// MaxReplyErrors bounds the errors a reply lists; the rest are counted.
	MaxReplyErrors = 100
)

// checkShape refuses an operation of doc nested past MaxQueryDepth or
// selecting more than MaxQueryFields fields, fragments expanded (the walk
// stops at the bound, so a fragment used a thousand times over costs no
// more than the bound to refuse).
func checkShape(doc *ast.QueryDocument, op *ast.OperationDefinition) *gqlerror.Error {
	w := shapeWalk{doc: doc}
	w.walk(op.SelectionSet, 1)
	switch {
	case w.deep:
		return shapeError("the query nests selections deeper than %d levels", MaxQueryDepth)
	case w.fields > MaxQueryFields:
		return shapeError("the query selects more than %d fields (each alias and each use of a fragment counted)", MaxQueryFields)
	}
	return nil
}

func shapeError(format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	err.Extensions = map[string]any{"code": transport.CodeTooLarge.String()}
	return err
}

type shapeWalk struct {
	doc    *ast.QueryDocument
	fields int
	deep   bool
}

func (w *shapeWalk) walk(set ast.SelectionSet, depth int) {
	if depth > MaxQueryDepth {
		w.deep = true
	}
	for _, s := range set {
		if w.deep || w.fields > MaxQueryFields {
			return
		}
		switch s := s.(type) {
		case *ast.Field:
			w.fields++
			if len(s.SelectionSet) > 0 {
				w.walk(s.SelectionSet, depth+1)
			}
		case *ast.InlineFragment:
			w.walk(s.SelectionSet, depth)
		case *ast.FragmentSpread:
			if f := w.doc.Fragments.ForName(s.Name); f != nil {
				w.walk(f.SelectionSet, depth)
			}
		}
	}
}

// queryShape is checkShape as a gqlgen extension, and the bound on a
// reply's errors.
type queryShape struct{}

var _ interface {
	graphql.OperationContextMutator
	graphql.ResponseInterceptor
	graphql.HandlerExtension
} = queryShape{}

func (queryShape) ExtensionName() string { return "QueryShape" }

func (queryShape) Validate(graphql.ExecutableSchema) error { return nil }

func (queryShape) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil {
		return nil // gqlgen refuses it next, naming the operation
	}
	return checkShape(opCtx.Doc, op)
}

func (queryShape) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp != nil {
		resp.Errors = firstErrors(resp.Errors, func(more int) *gqlerror.Error {
			return gqlerror.Errorf("and %d more errors", more)
		})
	}
	return resp
}

// firstErrors keeps a reply's first MaxReplyErrors errors and ends them
// with more, saying how many there were past them: for gqlgen's replies
// and graphql-go's alike.
func firstErrors[E any](errs []E, more func(n int) E) []E {
	if len(errs) <= MaxReplyErrors {
		return errs
	}
	return append(errs[:MaxReplyErrors:MaxReplyErrors], more(len(errs)-MaxReplyErrors))
}

// checkUserQuery bounds a query of a user's message's schema (served by
// graphql-go, which has none of gqlgen's extensions) as the built-in one
// is: its tokens, depth and fields, and the bytes every get it asks for
// could reply, summed over its aliases and fragments, within the node's
// limit (100 aliases of get(count: 759) each under it returned 25.6 MB).
// Without introspection, a query that asks for the schema anywhere in
// it, fragments included, is refused first. The query is parsed here
// once for all of these.
func checkUserQuery(query string, vars map[string]any, model string, r replyLimit, introspection bool) *gqlerror.Error {
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, MaxQueryTokens)
	if err != nil {
		if e, ok := err.(*gqlerror.Error); ok {
			e.Extensions = map[string]any{"code": transport.CodeBadRequest.String()}
			return e
		}
		return gqlerror.Errorf("%v", err)
	}
	if !introspection && asksForSchema(doc) {
		err := gqlerror.Errorf("introspection is off (the graphql option introspection=false)")
		err.Extensions = map[string]any{"code": transport.CodeBadRequest.String()}
		return err
	}
	w := &costWalk{replyLimit: r}
	for _, op := range doc.Operations {
		if err := checkShape(doc, op); err != nil {
			return err
		}
		if op.Operation == ast.Query {
			w.gets(doc, op.SelectionSet, vars, model)
		}
	}
	if w.sum > r.limit {
		return shapeError("the query's gets could reply %d bytes (the size bound of every get, summed over its aliases and fragments), over the node's limit of %d bytes (--max-bytes)", w.sum, r.limit)
	}
	return nil
}

// asksForSchema says whether a field of doc's operations or fragments is
// __schema or __type, each selection read once as written (spreads are
// not followed: the fragments are read where they are defined).
func asksForSchema(doc *ast.QueryDocument) bool {
	var in func(ast.SelectionSet) bool
	in = func(set ast.SelectionSet) bool {
		for _, s := range set {
			switch s := s.(type) {
			case *ast.Field:
				if s.Name == "__schema" || s.Name == "__type" || in(s.SelectionSet) {
					return true
				}
			case *ast.InlineFragment:
				if in(s.SelectionSet) {
					return true
				}
			}
		}
		return false
	}
	for _, op := range doc.Operations {
		if in(op.SelectionSet) {
			return true
		}
	}
	for _, f := range doc.Fragments {
		if in(f.SelectionSet) {
			return true
		}
	}
	return false
}

// gets adds the size bound of every get at the root of set.
func (w *costWalk) gets(doc *ast.QueryDocument, set ast.SelectionSet, vars map[string]any, model string) {
	for _, s := range set {
		switch s := s.(type) {
		case *ast.Field:
			if s.Name == "get" {
				w.add(w.items(model, countArg(s, vars)))
			}
		case *ast.InlineFragment:
			w.gets(doc, s.SelectionSet, vars, model)
		case *ast.FragmentSpread:
			if f := doc.Fragments.ForName(s.Name); f != nil {
				w.gets(doc, f.SelectionSet, vars, model)
			}
		}
	}
}

// countArg is a get's count, literal or from a variable (0 when neither:
// graphql-go refuses it next).
func countArg(f *ast.Field, vars map[string]any) int {
	a := f.Arguments.ForName("count")
	if a == nil || a.Value == nil {
		return 0
	}
	v, err := a.Value.Value(vars)
	if err != nil {
		return 0
	}
	switch n := v.(type) {
	case int64:
		return int(n)
	case float64:
		return int(n)
	case int:
		return n
	}
	return 0
}
