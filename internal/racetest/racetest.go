// Package racetest tells tests whether the race detector is on. make test
// runs the suite under -race, then, without it, the tests that skip
// themselves here (scripts/unraced.sh): one goroutine's work, which the
// detector slows several times and checks nothing in, and the cases of a
// library with a race of its own.
package racetest

import "testing"

// Unraced skips t under the race detector, saying why: the test runs in
// make test's pass without -race.
func Unraced(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skip(why + ": make test runs it without -race (scripts/unraced.sh)")
	}
}
