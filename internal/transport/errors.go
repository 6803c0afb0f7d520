package transport

import (
	"errors"
	"fmt"
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
