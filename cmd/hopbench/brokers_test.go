package main_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/broker/brokertest"
)

// The walk-through: brokers up (with TLS beside plain text, client
// certificates required), then for each broker stack a node and a load
// with no address flags at all, plain and over mutual TLS, and a TLS load
// without a certificate refused; then brokers status and down, which
// leaves no broker process behind. It uses the brokers' usual addresses,
// as a user would.
func TestBrokerStacksByHandWithDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts brokers")
	}
	dir := t.TempDir()
	tlsDir := dir + "/tls"
	upOut, err := exec.Command(bin, "brokers", "up", "--dir", dir, "--tls-dir", tlsDir, "--mtls").CombinedOutput()
	t.Cleanup(func() { hopbench(t, "brokers", "down", "--dir", dir) })
	if err != nil {
		t.Fatalf("brokers up: %v: %s", err, upOut)
	}
	for _, stack := range []string{"amqp", "kafka", "nats", "mqtt"} {
		t.Run(stack, func(t *testing.T) { nodeAndLoadByHand(t, stack) })
		t.Run(stack+"/mtls", func(t *testing.T) {
			nodeAndLoadByHand(t, stack, "--tls-dir", tlsDir, "--mtls")
			out, code := hopbenchStderr(t, "load", "--stack", stack, "--tls-dir", tlsDir, "--clients", "1", "--duration", "1s")
			// TLS 1.3 finishes the client's handshake before the server
			// checks its certificate, so the refusal reads as a certificate
			// alert, or the connection closed or reset after the
			// handshake; the same load with --mtls succeeded above.
			if code == 0 || !strings.Contains(out, "unavailable") {
				t.Errorf("a TLS load without a client certificate: exit %d: %s", code, out)
			}
		})
	}
	brokersStatusAndDown(t, dir)
}

// Brokers started with TLS and no client certificates take node and load
// by hand, with --tls-dir and default addresses, for every broker stack:
// NATS takes TLS on its one port, and node and load went to the
// listener that exists for mutual TLS only ("no servers available").
func TestBrokerStacksByHandOverTLSWithDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts brokers")
	}
	dir := t.TempDir()
	tlsDir := dir + "/tls"
	upOut, err := exec.Command(bin, "brokers", "up", "rabbitmq", "kafka", "nats", "mosquitto", "--dir", dir, "--tls-dir", tlsDir).CombinedOutput()
	t.Cleanup(func() { hopbench(t, "brokers", "down", "--dir", dir) })
	if err != nil {
		t.Fatalf("brokers up: %v: %s", err, upOut)
	}
	for _, stack := range []string{"amqp", "kafka", "nats", "mqtt"} {
		t.Run(stack, func(t *testing.T) { nodeAndLoadByHand(t, stack, "--tls-dir", tlsDir) })
	}
}

// nodeAndLoadByHand starts a node of stack with no address flags and runs
// a load against it, with the same extra flags, expecting its 20 calls
// answered. The warm-up holds the first calls, which wait for Kafka to
// give the node's consumer its partitions: on a busy machine over a
// second, past the default SLA. The load ends at a count, not a duration:
// on a busy machine Kafka's calls took 0.4 s each, 6 in a second.
func nodeAndLoadByHand(t *testing.T, stack string, extra ...string) {
	node := exec.Command(bin, append([]string{"node", "--stack", stack, "--admin", ""}, extra...)...)
	stderr, _ := node.StderrPipe()
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { node.Process.Signal(os.Interrupt); node.Wait() }()
	line, _ := bufio.NewReader(stderr).ReadString('\n')
	if !strings.Contains(line, "serving on "+stack+"://127.0.0.1:") || !strings.Contains(line, "/hopbench") {
		t.Fatalf("node start-up line %q: want it serving on the broker's default address", line)
	}
	out, code := hopbench(t, append([]string{"load", "--stack", stack, "--op", "echo", "--model", "text", "--count", "10",
		"--clients", "4", "--warmup", "2s", "--requests", "20", "--format", "json"}, extra...)...)
	if code != 0 {
		t.Fatalf("load: exit %d: %s", code, out)
	}
	var got struct {
		Requests, Errors int64
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Requests != 20 || got.Errors != 0 {
		t.Fatalf("load figures: %s (%v)", out, err)
	}
}

// brokersStatusAndDown checks the brokers hopbench brokers up started in
// dir, then stops them.
func brokersStatusAndDown(t *testing.T, dir string) {
	// The kafka node has gone, its topic stays: with no service consuming,
	// a load's first call has a deadline and ends with a classified error
	// instead of waiting for ever.
	began := time.Now()
	stderr, code := hopbenchStderr(t, "load", "--stack", "kafka", "--clients", "1", "--duration", "3s")
	if took := time.Since(began); code == 0 || took > 18*time.Second || !strings.Contains(stderr, "did not answer a first echo call (timeout)") {
		t.Errorf("kafka load with nobody consuming: exit %d after %v: %s", code, took.Round(time.Second), stderr)
	}
	out, code := hopbench(t, "brokers", "status", "--dir", dir, "--format", "json")
	var status []struct {
		Name, Addr, Version string
		PID                 int
		Up, Started         bool
		RSSBytes            int64 `json:"rss_bytes"`
	}
	if err := json.Unmarshal([]byte(out), &status); err != nil || code != 0 || len(status) != 5 {
		t.Fatalf("status: exit %d, %v: %s", code, err, out)
	}
	for _, s := range status {
		if !s.Up || s.PID == 0 || s.Version == "" || s.RSSBytes <= 0 || !s.Started {
			t.Errorf("status of %s: %+v; want up with a pid, version and RSS, started by hopbench", s.Name, s)
		}
		// Loopback only: every listener of every broker process.
		addrs, err := brokertest.Listening(s.PID)
		if err != nil || len(addrs) == 0 {
			t.Errorf("%s (pid %d): listening sockets %v, %v", s.Name, s.PID, addrs, err)
		}
		for _, a := range addrs {
			if !strings.HasPrefix(a, "127.0.0.1:") {
				t.Errorf("%s (pid %d) listens on %s, off loopback", s.Name, s.PID, a)
			}
		}
	}
	table, _ := hopbench(t, "brokers", "status", "--dir", dir)
	if !strings.Contains(table, "MiB") || !strings.Contains(table, "rabbitmq") {
		t.Errorf("status table:\n%s", table)
	}
	if out, code := hopbench(t, "brokers", "down", "--dir", dir); code != 0 || strings.Count(out, "stopped") != 5 {
		t.Fatalf("down: exit %d: %s", code, out)
	}
	for _, s := range status {
		if data, err := os.ReadFile("/proc/" + strconv.Itoa(s.PID) + "/stat"); err == nil && !strings.Contains(string(data), ") Z") {
			t.Errorf("%s (pid %d) still running after brokers down", s.Name, s.PID)
		}
	}
}

func TestBrokersRefusesAnUnknownBroker(t *testing.T) {
	out, code := hopbenchStderr(t, "brokers", "up", "mqtt")
	if code != 2 || !strings.Contains(out, "known: kafka, mosquitto, nats, rabbitmq") {
		t.Fatalf("exit %d: %s", code, out)
	}
}
