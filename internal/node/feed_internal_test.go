package node

import (
	"errors"
	"testing"

	"github.com/hopbench/hopbench/internal/transport"
)

// A send the transport refuses as too large is the node's error; any
// other failed send is its caller leaving, which is not.
func TestAFeedsRefusedSendIsTheNodesOnlyWhenTooLarge(t *testing.T) {
	var gone *callerGone
	tooLarge := &feeder{send: func([]byte) error { return transport.TooLarge("feed message", 5, 4) }}
	if err := tooLarge.sendBytes([]byte("hello")); transport.CodeOf(err) != transport.CodeTooLarge || errors.As(err, &gone) {
		t.Errorf("a send refused as too large: %v, want the node's too-large error", err)
	}
	broken := &feeder{send: func([]byte) error { return errors.New("connection reset") }}
	if err := broken.sendBytes([]byte("hello")); !errors.As(err, &gone) {
		t.Errorf("a send that failed as the caller left: %v, want it taken for the caller's leaving", err)
	}
}
