package nodetest_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/hopbench/hopbench/internal/codec"
	"github.com/hopbench/hopbench/internal/nodeapi/nodetest"
	"github.com/hopbench/hopbench/internal/payload"
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

// Every model's JSON, as the Go node writes it, comes back from the JVM
// node's echo as the same message: Jackson on plain classes reads and
// writes the Go node's field names, and leaves nothing out.
func TestTheJVMNodeEchoesEveryModelsJSON(t *testing.T) {
	addr := startJVM(t)
	js, err := codec.Lookup("json")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range payload.Models() {
		count := min(m.Counts[0], 100)
		sent, err := m.Message(count, payload.DefaultSeed)
		if err != nil {
			t.Fatal(err)
		}
		body, err := js.Marshal(sent)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Post("http://"+addr+"/v1/"+m.Name+"/echo", js.ContentType(), bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		back := m.New()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s×%d: %s %s", m.Name, count, resp.Status, reply)
		} else if err := js.Unmarshal(reply, back); err != nil || !proto.Equal(back, sent) {
			t.Errorf("%s×%d came back changed (%v):\nsent %s\ngot  %s", m.Name, count, err, body, reply)
		}
	}
}

// startJVM starts the JVM node serving rest on a free port and returns its
// address.
func startJVM(t *testing.T) string {
	t.Helper()
	_, ready := nodetest.Start(t, "java", "-jar", jvmNode(t), "--stack", "rest")
	return ready.Addr
}
