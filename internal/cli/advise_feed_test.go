package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// feed and first_message_sla come from the requirements file, and flags
// override them.
func TestAdviseReadsAFeedFromTheRequirements(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "needs.yaml")
	if err := os.WriteFile(file, []byte("model: user\ncount: 3\nfeed: 20\nfirst_message_sla: 1ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "advise", "../advise/testdata/quick.jsonl", "--requirements", file, "--first-message-sla", "2ms")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "user×3 through direct, in feeds of 20 messages (feed:20)") || !strings.Contains(out, "first message at p99 within 2ms") ||
		!strings.Contains(out, "Cannot: amqp: ") || !strings.Contains(out, "Missing: no feed:20 run") {
		t.Errorf("advice:\n%s", out)
	}
}
