package main

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// An interrupt is said as one; any other error, a cancelled context
// among them when no interrupt came, as itself.
func TestAnInterruptIsSaidAsOne(t *testing.T) {
	interrupted, cancel := context.WithCancel(context.Background())
	cancel()
	wrapped := fmt.Errorf("run: %w", context.Canceled)
	if got := message(interrupted, wrapped); got != "interrupted" {
		t.Errorf("after an interrupt: %q, want interrupted", got)
	}
	if got := message(context.Background(), wrapped); got != wrapped.Error() {
		t.Errorf("no interrupt: %q", got)
	}
	if got := message(interrupted, errors.New("boom")); got != "boom" {
		t.Errorf("another error after an interrupt: %q", got)
	}
}
