package load

import (
	"fmt"
	"syscall"
	"time"
)

// Default bounds on a load: beyond them a run would exhaust this machine
// (every client is a goroutine and, over HTTP/1.1, a connection) or never
// end. Limits raises them.
const (
	MaxClients = 10_000
	MaxRate    = 1_000_000 // requests/s
	MaxWorkers = 10_000
)

// Defaults of a load, the one place each is set: the spec, hopbench load's
// flags and Validate take them from here.
const (
	DefaultSLA     = time.Second
	DefaultTimeout = 30 * time.Second
	DefaultWorkers = 256 // an open loop's calls in flight
)

// fdReserve is the open files a generator keeps for everything but its
// clients' connections.
const fdReserve = 256

// Limits bound a load's clients (and an open loop's calls in flight) and
// rate; zero fields are the defaults. A raised client limit still stays
// within the process's open-file limit, less a reserve.
type Limits struct {
	Clients int     `yaml:"clients" json:"clients,omitempty"`
	Rate    float64 `yaml:"rate" json:"rate,omitempty"`
}

// How each front end raises the limits, for the errors that name them.
const raiseHow = "raise it with limits: {%s: N} in the spec, or %s N for hopbench load"

// Check refuses limits beyond what this process can hold.
func (l Limits) Check() error {
	if l.Clients < 0 || l.Rate < 0 {
		return fmt.Errorf("limits %+v: want positive limits (or none, for the defaults: %d clients, %d requests/s)", l, MaxClients, MaxRate)
	}
	if fds := openFileLimit(); l.Clients > fds-fdReserve {
		return fmt.Errorf("limits: clients %d: more than this process can connect: its open-file limit is %d (ulimit -n), less %d for everything else; raise that first", l.Clients, fds, fdReserve)
	}
	return nil
}

func (l Limits) clients() int {
	if l.Clients > 0 {
		return l.Clients
	}
	return MaxClients
}

func (l Limits) rate() float64 {
	if l.Rate > 0 {
		return l.Rate
	}
	return MaxRate
}

// CheckClients refuses n clients (or calls in flight) above the limit,
// naming it and how to raise it.
func (l Limits) CheckClients(what string, n int) error {
	if n < 1 {
		return fmt.Errorf("%s %d: want at least 1", what, n)
	}
	if n > l.clients() {
		return fmt.Errorf("%s %d: more than the limit of %d (each is a goroutine and, over HTTP/1.1, a connection of its own); "+raiseHow, what, n, l.clients(), "clients", "--max-clients")
	}
	return nil
}

// CheckRate refuses a rate above the limit, naming it and how to raise it.
func (l Limits) CheckRate(what string, r float64) error {
	if r <= 0 {
		return fmt.Errorf("%s %v: want a positive number of requests/s", what, r)
	}
	if r > l.rate() {
		return fmt.Errorf("%s %v: more than the limit of %.0f requests/s; "+raiseHow, what, r, l.rate(), "rate", "--rate-limit")
	}
	return nil
}

// openFileLimit is the process's soft RLIMIT_NOFILE (Go raises it to the
// hard limit at start-up); a large number when it cannot be read.
func openFileLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur > 1<<30 {
		return 1 << 30
	}
	return int(r.Cur)
}

// PeakConcurrency is the most calls the load may have in flight at once:
// its clients, its last ramp step of clients, or an open loop's workers.
func (c Config) PeakConcurrency() int {
	switch {
	case c.Kind == Closed:
		return c.Clients
	case c.Kind == Ramp && c.RampOf == "clients":
		return int(c.Steps.To)
	}
	return max(c.Workers, 256)
}
