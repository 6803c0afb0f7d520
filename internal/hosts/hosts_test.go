package hosts

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hopbench/hopbench/internal/network"
)

// A state file older than a reboot names PIDs that may be anyone's now:
// hosts down signals none that is not in its host's namespace.
func TestDownSignalsNoProcessOutsideTheHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ip netns")
	}
	if _, err := exec.LookPath("ip"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and iproute2")
	}
	if out, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(out), network.HostsID+"_") {
		t.Skip("hosts are up on this machine: this test would take them down")
	}
	bystander := exec.Command("sleep", "60")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer bystander.Process.Kill()
	dir := t.TempDir()
	stale, _ := json.Marshal(State{Hosts: []Host{{Name: "a", NS: network.HostsID + "_0", PID: bystander.Process.Pid}}})
	if err := os.WriteFile(filepath.Join(dir, stateFile), stale, 0o600); err != nil {
		t.Fatal(err)
	}
	said, err := Down(dir)
	if err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(bystander.Process.Pid, 0) != nil {
		t.Fatal("hosts down signalled a process that was not in its hosts' namespaces")
	}
	if !strings.HasPrefix(said, "0 agents stopped") {
		t.Errorf("said %q, want no agent stopped", said)
	}
	if _, err := os.Stat(filepath.Join(dir, stateFile)); !os.IsNotExist(err) {
		t.Errorf("the state file is still there: %v", err)
	}
}
