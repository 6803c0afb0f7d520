package cli_test

import (
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/cli"
)

// A directory given where a spec goes is named as a directory, not as a
// missing file.
func TestADirectoryGivenAsASpecIsNamedSo(t *testing.T) {
	dir := t.TempDir()
	_, _, err := run(t, "run", dir)
	if err == nil || !strings.Contains(err.Error(), dir+" is a directory: give a spec file") || cli.ExitCode(err) != 2 {
		t.Errorf("run DIR: %v (exit %d), want a usage error saying it is a directory", err, cli.ExitCode(err))
	}
}
