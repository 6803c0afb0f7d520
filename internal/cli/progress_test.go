package cli

import (
	"testing"
	"time"
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
