package load

import (
	"context"
	"errors"

	"github.com/hopbench/hopbench/internal/transport"
)

// Class is why a request did not succeed.
type Class int

const (
	ClassTimeout     Class = iota // no reply within the call timeout
	ClassRefused                  // the service could not be reached or refused the call
	ClassProtocol                 // a reply that could not be read, or a broken exchange
	ClassApplication              // the service replied with an error
	ClassOverSLA                  // a good reply, but later than the SLA allows
	// ClassLost is a one-way message the broker took and no consumer
	// took before the run's wait for them ended (package oneway counts
	// them; no call is classified so).
	ClassLost
	numClasses
)

var classNames = [numClasses]string{"timeout", "refused", "protocol", "application", "over_sla", "lost"}

func (c Class) String() string { return classNames[c] }

// ClassNames lists every class, in a fixed order.
func ClassNames() []string { return classNames[:] }

// Classify sorts a failed call's error into a Class. Transports report
// their failures as *transport.Error; anything else came from reading the
// reply, so it is a protocol error.
func Classify(err error) Class {
	var te *transport.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errTimedOut):
		return ClassTimeout
	case !errors.As(err, &te):
		return ClassProtocol
	case te.Code == transport.CodeDeadline:
		return ClassTimeout
	case te.Code == transport.CodeUnavailable:
		return ClassRefused
	}
	return ClassApplication
}

// errTimedOut is the cause a worker's context carries when the watchdog
// ends a call that ran past its timeout.
var errTimedOut = errors.New("call timed out")
