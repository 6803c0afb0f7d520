package broker_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/broker/brokertest"
	"github.com/hopbench/hopbench/internal/lease"
)

// TestHelperHoldsALease is not a test: run by anotherRun as a child
// process, it takes a lease in HOPBENCH_TEST_LEASE_DIR, as a hopbench run
// using a broker does, and holds it until killed.
func TestHelperHoldsALease(t *testing.T) {
	dir := os.Getenv("HOPBENCH_TEST_LEASE_DIR")
	if dir == "" {
		t.Skip("a helper process, run by anotherRun")
	}
	if _, err := lease.Take(dir); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("held\n")
	time.Sleep(time.Minute)
}

// anotherRun is another process using the broker name at addr until it is
// killed.
func anotherRun(t *testing.T, name, addr string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldsALease$")
	cmd.Env = append(os.Environ(), "HOPBENCH_TEST_LEASE_DIR="+broker.UsersDir(name, addr))
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("helper: %q", line)
	}
	return cmd
}

// isolatedLeases keeps the test's leases apart from real runs'.
func isolatedLeases(t *testing.T) {
	t.Setenv("HOPBENCH_LEASES", t.TempDir())
}

// The issue: a run that started NATS stopped it while a second run was
// measuring over it. Now Stop waits for the other run, saying so, and
// stops the broker once that run is gone.
func TestStopWaitsForAnotherRunUsingTheBroker(t *testing.T) {
	isolatedLeases(t)
	cfg := brokertest.Config(t)
	var mu sync.Mutex
	var heard []string
	waiting := make(chan struct{}, 1) // Stop says it waits for the other run
	cfg.Notify = func(m string) {
		mu.Lock()
		heard = append(heard, m)
		mu.Unlock()
		select {
		case waiting <- struct{}{}:
		default:
		}
	}
	ctx := context.Background()
	b, err := broker.Start(ctx, "nats", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	other := anotherRun(t, "nats", b.Addr)
	stopped := make(chan error, 1)
	go func() { stopped <- b.Stop(ctx) }()
	select {
	case <-waiting:
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) without waiting for the other run", err)
	}
	if _, err := broker.Probe(ctx, "nats", b.Addr); err != nil {
		t.Fatalf("stopped under the other run: %v", err)
	}
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) while another run used the broker", err)
	default:
	}
	if st, _ := broker.GetStatus(ctx, "nats", cfg); len(st.Users) != 1 || !strings.Contains(st.Users[0], "pid "+strconv.Itoa(other.Process.Pid)) {
		t.Errorf("status users %q, want the other run", st.Users)
	}
	other.Process.Kill() // its lease goes with it
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Stop still waiting after the other run died")
	}
	if _, err := broker.Probe(ctx, "nats", b.Addr); err == nil {
		t.Fatal("the broker still answers after Stop")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 1 || !strings.Contains(heard[0], "in use by pid "+strconv.Itoa(other.Process.Pid)) || !strings.Contains(heard[0], "waiting") {
		t.Errorf("heard %q, want one message naming the other run", heard)
	}
}

// An interrupted run does not wait: it stops the broker and says whose
// run it stops it under (that run sees it die: broker died).
func TestStopInterruptedDoesNotWait(t *testing.T) {
	isolatedLeases(t)
	cfg := brokertest.Config(t)
	var heard []string
	cfg.Notify = func(m string) { heard = append(heard, m) }
	b, err := broker.Start(context.Background(), "nats", cfg)
	if err != nil {
		t.Fatal(err)
	}
	anotherRun(t, "nats", b.Addr)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if len(heard) != 1 || !strings.Contains(heard[0], "interrupted") {
		t.Errorf("heard %q", heard)
	}
}

// The issue: two runs needing a broker at the same instant; one failed
// with "stdin fifo: file exists". Now the second waits for the first to
// start it, then uses it.
func TestTwoStartsAtOnceShareOneBroker(t *testing.T) {
	isolatedLeases(t)
	name := "rabbitmq"
	if testing.Short() {
		name = "nats"
	}
	cfg := brokertest.Config(t)
	var mu sync.Mutex
	var heard []string
	cfg.Notify = func(m string) { mu.Lock(); heard = append(heard, m); mu.Unlock() }
	var wg sync.WaitGroup
	got := make([]*broker.Broker, 2)
	errs := make([]error, 2)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i], errs[i] = broker.Start(context.Background(), name, cfg) }()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
		defer got[i].Close()
	}
	if got[0].Started == got[1].Started {
		t.Fatalf("started: %v and %v, want exactly one start", got[0].Started, got[1].Started)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) == 0 || !strings.Contains(heard[0], "which is starting it") {
		t.Errorf("heard %q, want the waiting start told who starts it", heard)
	}
}

// hopbench brokers down refuses to stop a broker another run is using,
// naming it, unless forced.
func TestDownRefusesABrokerInUse(t *testing.T) {
	isolatedLeases(t)
	cfg := brokertest.Config(t)
	stand := exec.Command("sleep", "60") // stands for a broker hopbench started
	if err := stand.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stand.Process.Kill(); stand.Wait() }()
	pid := strconv.Itoa(stand.Process.Pid)
	state := `{"name":"rabbitmq","addr":"` + cfg.Addr + `","pid":` + pid + `,"started":true,"start_times":{"` + pid + `":` + strconv.FormatUint(broker.StartTime(stand.Process.Pid), 10) + `}}`
	os.MkdirAll(filepath.Join(cfg.Dir, "rabbitmq"), 0o755)
	if err := os.WriteFile(filepath.Join(cfg.Dir, "rabbitmq", "broker.json"), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	other := anotherRun(t, "rabbitmq", cfg.Addr)
	_, err := broker.Down(context.Background(), "rabbitmq", cfg)
	if err == nil || !strings.Contains(err.Error(), "in use by pid "+strconv.Itoa(other.Process.Pid)) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("down while in use: %v", err)
	}
	if !alive(stand.Process.Pid) {
		t.Fatal("down stopped it anyway")
	}
	cfg.Force = true
	if msg, err := broker.Down(context.Background(), "rabbitmq", cfg); err != nil || !strings.Contains(msg, "stopped") {
		t.Fatalf("forced down: %q, %v", msg, err)
	}
	stand.Wait()
}

func alive(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil && !zombie(pid)
}

// Mosquitto, a process of its own like RabbitMQ, is leased as every
// broker is: its status lists the runs using it, and down refuses to stop
// it under another run, then stops it, leaving nothing behind.
func TestMosquittoIsLeased(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real broker")
	}
	isolatedLeases(t)
	cfg := brokertest.Config(t)
	b, err := broker.Start(context.Background(), "mosquitto", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Leave() // as hopbench brokers up does
	other := anotherRun(t, "mosquitto", b.Addr)
	st, err := broker.GetStatus(context.Background(), "mosquitto", cfg)
	if err != nil || !st.Up || len(st.Users) != 1 || !strings.Contains(st.Users[0], "pid "+strconv.Itoa(other.Process.Pid)) {
		t.Fatalf("status %+v, %v: want up, used by the other run", st, err)
	}
	if _, err := broker.Down(context.Background(), "mosquitto", cfg); err == nil || !strings.Contains(err.Error(), "in use by pid "+strconv.Itoa(other.Process.Pid)) {
		t.Fatalf("down under another run: %v", err)
	}
	other.Process.Kill()
	other.Wait()
	if msg, err := broker.Down(context.Background(), "mosquitto", cfg); err != nil || !strings.Contains(msg, "stopped") {
		t.Fatalf("down: %q, %v", msg, err)
	}
	if alive(b.PID) {
		t.Fatalf("mosquitto pid %d still running after down", b.PID)
	}
}
