package transport_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/transport"
	"github.com/hopbench/hopbench/internal/transport/brokered"
)

// A classified error keeps its message and its cause, so errors.Is and
// errors.As see through it.
func TestClassifiedErrorsKeepTheirCause(t *testing.T) {
	for _, err := range []error{
		transport.Errorf(transport.CodeBadRequest, "reading the request body: %w", io.ErrUnexpectedEOF),
		brokered.Unavailable("nats: connecting to NATS at %s: %w (is it running?)", "127.0.0.1:4222", io.ErrUnexpectedEOF),
	} {
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%v: the cause is lost", err)
		}
		if !strings.Contains(err.Error(), "unexpected EOF") || !strings.Contains(err.Error(), ": ") {
			t.Errorf("%v: the message is lost", err)
		}
	}
}
