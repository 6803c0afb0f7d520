package broker_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/broker/brokertest"
)

// TestStartStatusClose starts each broker on free ports, checks it answers
// with its version, that a second Start uses it as is, and that Close
// leaves no process behind.
func TestStartStatusClose(t *testing.T) {
	for _, name := range broker.Names {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name != "nats" {
				t.Skip("starts a real broker")
			}
			cfg := brokertest.Config(t)
			ctx := context.Background()
			b, err := broker.Start(ctx, name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if !b.Started || b.PID == 0 || b.Version == "" {
				t.Fatalf("started %s: %+v, want started with a pid and a version", name, b)
			}
			if u, err := b.Usage(); err != nil || u.RSSBytes <= 0 {
				t.Fatalf("usage of %s: %+v, %v", name, u, err)
			}
			again, err := broker.Start(ctx, name, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if again.Started {
				t.Fatal("a second Start started another broker instead of using the one answering")
			}
			again.Close()
			st, err := broker.GetStatus(ctx, name, cfg)
			if err != nil || !st.Up || st.Version != b.Version || st.PID != b.PID {
				t.Fatalf("status after closing the borrowed handle: %+v, %v; want up, version %s, pid %d", st, err, b.Version, b.PID)
			}
			if name == "nats" {
				return // in process: no process of its own
			}
			// Every listener of the broker and its helpers (RabbitMQ's epmd
			// and Erlang distribution included) is on loopback.
			for _, p := range append([]int{b.PID}, b.Extra...) {
				addrs, err := brokertest.Listening(p)
				if err != nil {
					t.Fatal(err)
				}
				if len(addrs) == 0 && p == b.PID {
					t.Errorf("%s pid %d: no listening socket found", name, p)
				}
				for _, a := range addrs {
					if !strings.HasPrefix(a, "127.0.0.1:") && !strings.HasPrefix(a, "[::1]:") {
						t.Errorf("%s pid %d listens on %s, off loopback", name, p, a)
					}
				}
			}
			pid := b.PID
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil && !zombie(pid) {
				t.Fatalf("%s pid %d still running after Close", name, pid)
			}
			for _, extra := range b.Extra {
				if _, err := os.Stat("/proc/" + strconv.Itoa(extra)); err == nil && !zombie(extra) {
					t.Fatalf("%s helper pid %d still running after Close", name, extra)
				}
			}
			if st, _ := broker.GetStatus(ctx, name, cfg); st.Up {
				t.Fatalf("%s still answers after Close", name)
			}
		})
	}
}

// signalled says how pid, a child not yet waited for, shows a signal sent
// to it, or "" if it shows none. Once kill(2) has returned, a signal sent
// to the process is in its shared pending set until it is reaped, whether
// it has acted yet or not: no wait is needed to see it.
func signalled(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return err.Error()
	}
	for _, line := range strings.Split(string(data), "\n") {
		key, val, _ := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		switch {
		case key == "State" && (strings.HasPrefix(val, "Z") || strings.HasPrefix(val, "X")):
			return "it is dead (" + val + ")"
		case (key == "SigPnd" || key == "ShdPnd") && strings.Trim(val, "0") != "":
			return "signals pending: " + key + " " + val
		}
	}
	return ""
}

func zombie(pid int) bool {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// TestFailedStartShowsTheLog: a broker that cannot start is reported with
// the end of its log, when it exits, not after the ready timeout. Here
// something that is not RabbitMQ holds its port.
func TestFailedStartShowsTheLog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real broker")
	}
	squatter, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer squatter.Close()
	go func() {
		for {
			c, err := squatter.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	cfg := brokertest.Config(t)
	cfg.Addr = squatter.Addr().String()
	start := time.Now()
	_, err = broker.Start(context.Background(), "rabbitmq", cfg)
	if err == nil || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "end of its log") {
		t.Fatalf("got %v, want an error saying it exited, with its log", err)
	}
	if waited := time.Since(start); waited > 60*time.Second {
		t.Fatalf("the failure took %v to report", waited)
	}
	t.Logf("the error: %v", err)
}

func TestMissingKafkaJarsSaySo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs java")
	}
	cfg := brokertest.Config(t)
	cfg.KafkaLibs = t.TempDir()
	_, err := broker.Start(context.Background(), "kafka", cfg)
	if err == nil || !strings.Contains(err.Error(), "ClassNotFoundException") {
		t.Fatalf("got %v, want the JVM's complaint", err)
	}
}

func TestRefusesAddressesOffLoopback(t *testing.T) {
	cfg := broker.Config{Dir: t.TempDir(), Addr: "10.1.2.3:5672"}
	_, err := broker.Start(context.Background(), "rabbitmq", cfg)
	if err == nil || !strings.Contains(err.Error(), "not on loopback") {
		t.Fatalf("got %v, want a refusal naming loopback", err)
	}
	if _, err := broker.Start(context.Background(), "mqtt", broker.Config{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "known: kafka, mosquitto, nats, rabbitmq, redis") {
		t.Fatalf("got %v, want unknown broker listing the known ones", err)
	}
}

func TestDownLeavesForeignBrokersAlone(t *testing.T) {
	cfg := brokertest.Config(t)
	cfg.InProcess = true
	b, err := broker.Start(context.Background(), "nats", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Another hopbench with another data directory did not start it.
	other := cfg
	other.Dir = filepath.Join(t.TempDir(), "other")
	msg, err := broker.Down(context.Background(), "nats", other)
	if err != nil || !strings.Contains(msg, "left running") {
		t.Fatalf("Down = %q, %v; want it left running", msg, err)
	}
	if _, err := broker.Probe(context.Background(), "nats", cfg.Addr); err != nil {
		t.Fatalf("Down stopped a broker it had not started: %v", err)
	}
}

func TestKafkaClusterIDsNeverLookLikeAnOption(t *testing.T) {
	for range 10000 {
		if id := broker.ClusterID(); len(id) != 22 || id[0] == '-' {
			t.Fatalf("cluster id %q", id)
		}
	}
}

// A state file left by a hopbench that was killed names PIDs that may now
// be strangers' (the issue reproduced it with a sleep): down signals none
// of them, and status calls the state stale.
func TestAStalePIDIsNeverSignalled(t *testing.T) {
	cfg := brokertest.Config(t)
	stranger := exec.Command("sleep", "60")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stranger.Process.Kill(); stranger.Wait() }()
	pid := strconv.Itoa(stranger.Process.Pid)
	// The broker's recorded start time is not the sleep's: another process
	// has its number now.
	state := `{"name":"rabbitmq","addr":"` + cfg.Addr + `","pid":` + pid + `,"started":true,"extra":[` + pid + `],"start_times":{"` + pid + `":1}}`
	os.MkdirAll(filepath.Join(cfg.Dir, "rabbitmq"), 0o755)
	if err := os.WriteFile(filepath.Join(cfg.Dir, "rabbitmq", "broker.json"), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := broker.GetStatus(context.Background(), "rabbitmq", cfg)
	if err != nil || !st.Stale || st.Up || st.PID == stranger.Process.Pid {
		t.Errorf("status %+v, %v: want down and stale, not the stranger's pid", st, err)
	}
	msg, err := broker.Down(context.Background(), "rabbitmq", cfg)
	if err != nil || !strings.Contains(msg, "gone or now another process: left alone") {
		t.Errorf("down = %q, %v", msg, err)
	}
	if why := signalled(stranger.Process.Pid); why != "" {
		t.Fatalf("the stranger (pid %s) was signalled: %s", pid, why)
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, "rabbitmq", "broker.json")); !os.IsNotExist(err) {
		t.Errorf("the stale state file stays: %v", err)
	}
}

// A proxy in front of a broker listens anywhere and relays to the
// broker's address, but Kafka's at the address Kafka advertises for it,
// which a Kafka hopbench did not start has none of, said so.
func TestAProxyInFrontOfKafkaListensWhereKafkaSendsItsClients(t *testing.T) {
	listen, up, err := (&broker.Broker{Name: "nats", Addr: "127.0.0.1:4222"}).ProxyLeg("127.0.0.1:4222", false)
	if listen != "" || up != "127.0.0.1:4222" || err != nil {
		t.Errorf("nats: %q, %q, %v: want anywhere, to its address", listen, up, err)
	}
	k := &broker.Broker{Name: "kafka", Addr: "127.0.0.1:9092", ProxyAddr: "127.0.0.1:4000", ProxyUpstream: "127.0.0.1:4001"}
	if listen, up, err = k.ProxyLeg("127.0.0.1:9092", false); listen != k.ProxyAddr || up != k.ProxyUpstream || err != nil {
		t.Errorf("kafka: %q, %q, %v: want at %s, to %s", listen, up, err, k.ProxyAddr, k.ProxyUpstream)
	}
	if _, _, err = k.ProxyLeg("127.0.0.1:9093", true); err == nil || !strings.Contains(err.Error(), "leave tls out") {
		t.Errorf("kafka with tls: %v", err)
	}
	foreign := &broker.Broker{Name: "kafka", Addr: "127.0.0.1:9092"}
	if _, _, err = foreign.ProxyLeg("127.0.0.1:9092", false); err == nil || !strings.Contains(err.Error(), "hopbench brokers down kafka") {
		t.Errorf("a Kafka hopbench did not start: %v", err)
	}
}
