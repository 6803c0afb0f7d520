package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/results"
)

func TestTimeLeftIsTheMeanRunTimesTheRunsToGo(t *testing.T) {
	for _, c := range []struct {
		done, total int
		spent       time.Duration
		want        string
	}{
		{0, 10, 0, ""},
		{2, 10, 30 * time.Second, ", ~2m left"}, // 15 s a run, 8 to go
		{9, 10, 90 * time.Second, ", <1m left"},
		{2, 10, 60 * time.Second, ", ~4m left"},
		{10, 142, 10 * time.Minute, ", ~2h12m left"},
	} {
		if got := timeLeft(c.done, c.total, c.spent); got != c.want {
			t.Errorf("timeLeft(%d, %d, %v) = %q, want %q", c.done, c.total, c.spent, got, c.want)
		}
	}
}

// A run ended by a request count has no known length: its live line shows
// the seconds so far, never "11s/2s".
func TestALiveLineShowsATotalOnlyWhenItIsKnown(t *testing.T) {
	for requests, want := range map[int64]string{0: "x  11s/2s  5 req/s", 5: "x  11s  5 req/s"} {
		var b strings.Builder
		l := newLiveLine(&b, "x", 2*time.Second, requests)
		l.lastLine = time.Time{} // not a terminal: a line every 5 s
		l.second(results.Second{T: 10, Requests: 5})
		if !strings.HasPrefix(b.String(), want) {
			t.Errorf("%d requests: %q, want it to start %q", requests, b.String(), want)
		}
	}
}
