package trial

import (
	"slices"
	"testing"
)

// The nodes' soft memory limit is the run's, or off: never what the
// runner's own environment had.
func TestNodesGetTheRunsMemoryLimitAndNoOther(t *testing.T) {
	for _, c := range []struct {
		limit int64
		want  string
	}{{0, "GOMEMLIMIT=off"}, {300 << 20, "GOMEMLIMIT=314572800"}} {
		env := nodeEnv([]string{"A=1", "GOMEMLIMIT=1"}, &Case{GoMemLimit: c.limit})
		if env[len(env)-1] != c.want || slices.Contains(env, "GOMEMLIMIT=1") || !slices.Contains(env, "A=1") {
			t.Errorf("limit %d: node environment %v, want %s last and A=1 kept", c.limit, env, c.want)
		}
	}
}
