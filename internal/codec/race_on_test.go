//go:build race

package codec_test

// raceDetector: the size-bound property test marshals on one goroutine,
// which the race detector slows about eightfold and checks nothing in;
// make test runs it in a pass of its own without -race.
const raceDetector = true
