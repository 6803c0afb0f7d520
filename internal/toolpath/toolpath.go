// Package toolpath finds what scripts/setup.sh installs under the
// checkout's .tools (the Kafka broker's jars, the JVM node's build) from
// wherever hopbench runs: beside its binary (bin/hopbench) or below the
// checkout (go test runs in a package's directory).
package toolpath

import (
	"os"
	"path/filepath"
)

// Find returns dir/rel for the first dir, from the running binary's
// directory and then the working directory, each and its parents in turn,
// where found says dir/rel is there.
func Find(rel string, found func(path string) bool) (string, bool) {
	var starts []string
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			if p := filepath.Join(d, rel); found(p) {
				return p, true
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", false
}

// Exists says whether path exists.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
