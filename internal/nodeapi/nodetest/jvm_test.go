package nodetest_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopbench/hopbench/internal/nodeapi/nodetest"
)

// jvmNode is the JVM node's jar, as scripts/setup.sh jvm builds it.
func jvmNode(t *testing.T) string {
	t.Helper()
	jar, err := filepath.Abs(filepath.Join("..", "..", "..", ".tools", "jvm", "node", "quarkus-app", "quarkus-run.jar"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(jar); err != nil {
		if os.Getenv("HOPBENCH_REQUIRE_JVM") != "" {
			t.Fatalf("the JVM node is not built (%v): scripts/setup.sh jvm builds it", err)
		}
		t.Skipf("the JVM node is not built: scripts/setup.sh jvm builds it (make test does, and sets HOPBENCH_REQUIRE_JVM)")
	}
	return jar
}

// The JVM node (jvm/node, Quarkus) honours the node contract that the Go
// node does: the same checks, pointed at its command.
func TestTheJVMNodeHonoursTheNodeContract(t *testing.T) {
	nodetest.Check(t, "rest", "java", "-jar", jvmNode(t), "--stack", "rest")
}

// A stack the JVM node does not serve yet is refused by name, before it
// serves anything, with exit code 2.
func TestTheJVMNodeRefusesWhatItDoesNotServe(t *testing.T) {
	jar := jvmNode(t)
	var stderr strings.Builder
	cmd := exec.Command("java", "-jar", jar, "--stack", "grpc", "--announce")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || len(out) > 0 || !strings.Contains(stderr.String(), "stack grpc: the JVM node serves") {
		t.Errorf("--stack grpc: %v, stdout %q, stderr %q; want exit 2 naming the stack", err, out, stderr.String())
	}
}
