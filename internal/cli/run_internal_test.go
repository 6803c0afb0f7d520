package cli

import (
	"path/filepath"
	"sync"
	"testing"
)

// Runs started in the same second each get a results directory of their
// own.
func TestResultsDirectoriesAreNeverShared(t *testing.T) {
	base := filepath.Join(t.TempDir(), "results", "quick-20261123-150000")
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir, err := newResultsDir(base)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if seen[dir] {
				t.Errorf("%s handed out twice", dir)
			}
			seen[dir] = true
		}()
	}
	wg.Wait()
	if len(seen) != 5 || !seen[base] || !seen[base+"-5"] {
		t.Errorf("directories %v", seen)
	}
}
