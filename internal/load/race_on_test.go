//go:build race

package load_test

// slowdown scales the time bounds of tests that time the engine itself:
// under the race detector the collector merges each second's histograms
// several times slower, and drains the buckets queued behind a run at
// 10^12 requests/s for a second or two after it is cancelled.
const slowdown = 4
