package transport

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Code classifies a failed call the same way on every stack.
type Code int

const (
	CodeInternal    Code = iota // the service failed
	CodeBadRequest              // malformed or unsupported request
	CodeTooLarge                // a body above the size limit
	CodeUnavailable             // no connection, refused, or overloaded
	CodeDeadline                // the deadline passed
	CodeNotFound                // no such route or model
)

var codeNames = map[Code]string{
	CodeInternal: "internal", CodeBadRequest: "bad request", CodeTooLarge: "too large",
	CodeUnavailable: "unavailable", CodeDeadline: "deadline exceeded", CodeNotFound: "not found",
}

func (c Code) String() string { return codeNames[c] }

// CodeNames are every Code's name, sorted.
func CodeNames() []string { return slices.Sorted(maps.Values(codeNames)) }

// CodeNamed returns the Code whose String is name, for protocols that carry
// the class by name (GraphQL's extensions.code).
func CodeNamed(name string) (Code, bool) {
	for c, n := range codeNames {
		if n == name {
			return c, true
		}
	}
	return 0, false
}

// Error is a classified failure; transports carry Code and Msg across the wire.
type Error struct {
	Code Code
	Msg  string
	Err  error // the cause, on the side that made the error
}

func (e *Error) Error() string {
	if e.Msg == "" && e.Err != nil {
		return e.Code.String() + ": " + e.Err.Error()
	}
	return e.Code.String() + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf makes a classified error.
func Errorf(code Code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// TooLarge refuses a body over limit bytes, naming what it is (request
// body, reply body) and its size, when known (a negative size: it passed
// the limit while being read). Every stack says it in these words.
func TooLarge(what string, size, limit int) *Error {
	if size < 0 {
		return &Error{Code: CodeTooLarge, Msg: fmt.Sprintf("%s exceeds the limit of %d bytes", what, limit)}
	}
	return &Error{Code: CodeTooLarge, Msg: fmt.Sprintf("%s of %d bytes exceeds the limit of %d bytes", what, size, limit)}
}

// CheckBody refuses a body over limit bytes (see TooLarge); nil when it
// fits.
func CheckBody(what string, body []byte, limit int) error {
	if len(body) > limit {
		return TooLarge(what, len(body), limit)
	}
	return nil
}

// CodeOf returns the classification of err: CodeInternal for unclassified errors.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// CutOff is the error of a call made under ctx that failed with err. Once
// ctx has ended it wraps ctx.Err() (context.Canceled or DeadlineExceeded)
// beside err, whatever err says: a call cut off by its caller may see the
// end of its context first, or something the end set off first (a broker
// connection torn down in the same moment, its protocol's own status), and
// its caller (the load engine) must tell it from a failure of the service
// either way. A deadline is CodeDeadline; a cancellation CodeUnavailable,
// as the HTTP and gRPC stacks classify theirs. Before ctx ends, err is
// returned as it is.
func CutOff(ctx context.Context, err error) error {
	end := ctx.Err()
	if err == nil || end == nil {
		return err
	}
	code := CodeUnavailable
	if errors.Is(end, context.DeadlineExceeded) {
		code = CodeDeadline
	}
	var te *Error
	if errors.As(err, &te) && te == err && te.Code == code && errors.Is(err, end) {
		return err // already the context's
	}
	msg, why := message(err), context.Cause(ctx).Error()
	if !strings.Contains(msg, why) {
		msg += " (the call's context ended: " + why + ")"
	}
	return &Error{Code: code, Msg: msg, Err: errors.Join(end, err)}
}

// message is err's text without its class, which CutOff replaces.
func message(err error) string {
	if e, ok := err.(*Error); ok {
		if e.Msg == "" && e.Err != nil {
			return e.Err.Error()
		}
		return e.Msg
	}
	return err.Error()
}
