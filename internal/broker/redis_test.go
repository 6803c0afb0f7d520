package broker_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hopbench/hopbench/internal/broker"
	"github.com/hopbench/hopbench/internal/broker/brokertest"
)

// startRedis starts Redis for a test, which a full go test requires.
func startRedis(t *testing.T, cfg broker.Config) *broker.Broker {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a real Redis")
	}
	b, err := broker.Start(context.Background(), "redis", cfg)
	if err != nil {
		t.Fatal(err) // without redis-server: run scripts/setup.sh redis
	}
	return b
}

// Redis keeps its configuration, append-only file and log in its data
// directory, and what was written before a stop is there after a restart
// (appendonly, fsynced as it stops on SIGTERM).
func TestRedisKeepsItsDataInItsDirectory(t *testing.T) {
	isolatedLeases(t)
	cfg := brokertest.Config(t)
	b := startRedis(t, cfg)
	defer b.Close()
	dir := filepath.Join(cfg.Dir, "redis")
	conf, err := os.ReadFile(filepath.Join(dir, "redis.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bind 127.0.0.1\n", "appendonly yes\n", "appendfsync everysec\n", "daemonize no\n", `dir "` + dir + `"`} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("redis.conf lacks %q:\n%s", want, conf)
		}
	}
	if b.Log != filepath.Join(dir, "redis.log") {
		t.Errorf("log %s, want it in %s", b.Log, dir)
	}
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: b.Addr})
	defer rdb.Close()
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: "kept", Values: []string{"k", "v"}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "appendonlydir")); err != nil {
		t.Fatalf("no append-only file in the data directory: %v", err)
	}
	b = startRedis(t, cfg)
	defer b.Close()
	if n, err := rdb.XLen(ctx, "kept").Result(); err != nil || n != 1 {
		t.Fatalf("after a restart the stream holds %d entries (%v), want the 1 written before", n, err)
	}
}

// hopbench brokers up starts Redis detached; brokers down stops it, but
// not while another run uses it unless forced; nothing is left running.
func TestRedisUpAndDown(t *testing.T) {
	isolatedLeases(t)
	cfg := brokertest.Config(t)
	cfg.Detach = true
	b := startRedis(t, cfg)
	defer b.Close()
	b.Leave()
	other := anotherRun(t, "redis", b.Addr)
	if _, err := broker.Down(context.Background(), "redis", cfg); err == nil || !strings.Contains(err.Error(), "in use by pid "+strconv.Itoa(other.Process.Pid)) {
		t.Fatalf("down while another run uses it: %v", err)
	}
	if _, err := broker.Probe(context.Background(), "redis", b.Addr); err != nil {
		t.Fatalf("down stopped it anyway: %v", err)
	}
	cfg.Force = true
	msg, err := broker.Down(context.Background(), "redis", cfg)
	if err != nil || !strings.Contains(msg, "stopped") {
		t.Fatalf("down: %q, %v", msg, err)
	}
	<-b.Done() // our child: reaped once it exits
	if _, err := broker.Probe(context.Background(), "redis", b.Addr); err == nil {
		t.Fatal("Redis still answers after down")
	}
	if st, err := broker.GetStatus(context.Background(), "redis", cfg); err != nil || st.Up || st.PID != 0 {
		t.Fatalf("status after down: %+v, %v", st, err)
	}
}
