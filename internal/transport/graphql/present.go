package graphql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/hopbench/hopbench/internal/transport"
)

// presentError carries a classified error's class in extensions.code, so
// clients (ours included) can tell a bad request from a failure, and
// bounds what an error quotes of the request: gqlgen and gqlparser quote
// a body that is not JSON whole, and a name (a field, an operation, a
// variable's key) whole, so a 1 MB request came back in full in its
// error. Only errors pass here: a valid request costs nothing more.
func presentError(ctx context.Context, err error) *gqlerror.Error {
	e := graphql.DefaultErrorPresenter(ctx, err)
	e.Message = bounded(withoutBody(e.Message))
	for i, p := range e.Path {
		if name, ok := p.(ast.PathName); ok && len(name) > quoted {
			e.Path[i] = ast.PathName(shorten(string(name)))
		}
	}
	var te *transport.Error
	if errors.As(err, &te) {
		e.Message = bounded(te.Error())
		e.Extensions = map[string]any{"code": te.Code.String()}
	}
	return e
}

// undecodable is how gqlgen's POST transport begins its error for a body
// that is not JSON; it then quotes the whole body.
const undecodable = "json request body could not be decoded: "

const (
	// quoted is how much of the request one error quotes in a row: a
	// body that is not JSON, a name.
	quoted = 64
	// maxMessage bounds an error's message, whatever it quotes.
	maxMessage = 1024
)

// withoutBody rewords gqlgen's error for a body that is not a GraphQL
// request in JSON, which quotes the body whole: what is wrong, the
// body's first bytes and its size.
func withoutBody(msg string) string {
	if !strings.HasPrefix(msg, undecodable) {
		return msg
	}
	why, body, _ := strings.Cut(strings.TrimPrefix(msg, undecodable), " body:")
	begins := body
	if len(begins) > quoted {
		begins = prefix(begins, quoted) + "…"
	}
	return fmt.Sprintf("the request body is not a GraphQL request in JSON (%s); it begins %q (%d bytes)", why, begins, len(body))
}

// bounded shortens a message that quotes the request at length: each
// word longer than quoted keeps its ends, and the whole is cut at
// maxMessage. Messages that quote nothing long are left as they are.
func bounded(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	var b strings.Builder
	for w := range strings.SplitSeq(msg, " ") {
		if b.Len() > maxMessage {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shorten(w))
	}
	out := b.String()
	if len(out) > maxMessage {
		out = prefix(out, maxMessage) + "…"
	}
	return fmt.Sprintf("%s (%d bytes, shortened)", out, len(msg))
}

// shorten keeps a long word's first quoted bytes and last few, which
// close its quotes and sentence.
func shorten(w string) string {
	if len(w) <= quoted {
		return w
	}
	tail := len(w) - 4
	for tail < len(w) && !utf8.RuneStart(w[tail]) {
		tail++
	}
	return prefix(w, quoted) + "…" + w[tail:]
}

// prefix is s's first n bytes at most, not cutting a character.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
