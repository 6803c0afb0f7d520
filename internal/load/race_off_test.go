//go:build !race

package load_test

// slowdown scales the time bounds of tests that time the engine itself
// (see race_on_test.go).
const slowdown = 1
