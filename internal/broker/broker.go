// Package broker starts, checks and stops the message brokers the broker
// stacks talk through: RabbitMQ (Debian's rabbitmq-server), Kafka in KRaft
// mode (the Apache broker jars deploy/kafka/pom.xml fetches), NATS (the
// embedded nats-server/v2, in a process of its own), Redis (Debian's
// redis-server) and Mosquitto (Debian's mosquitto, for MQTT). Every broker listens on
// loopback only and keeps its data under a project-local directory.
//
// A broker already answering at the configured address is used as is and
// never stopped; one this package started is stopped by Stop or Close, or,
// when started detached (hopbench brokers up), by Down. Every hopbench
// process using a broker holds a lease on it (package lease), so that no
// process stops a broker another one is measuring over, and two processes
// never start one broker at once.
package broker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/lease"
	"github.com/hopbench/hopbench/internal/stats"
)

// technology is what each broker is to this package: how it is started
// in cfg.Dir (b records its processes and log) and asked, at addr, over
// TLS with tc when set, for the version it runs.
type technology interface {
	start(ctx context.Context, b *Broker, cfg Config) error
	probe(ctx context.Context, addr string, tc *tls.Config) (string, error)
}

// technologies are the brokers by name.
var technologies = map[string]technology{"rabbitmq": rabbitMQ{}, "kafka": kafka{}, "nats": natsBroker{}, "redis": redisBroker{}, "mosquitto": mosquitto{}}

type (
	rabbitMQ    struct{}
	kafka       struct{}
	natsBroker  struct{}
	redisBroker struct{}
	mosquitto   struct{}
)

func (rabbitMQ) start(ctx context.Context, b *Broker, cfg Config) error {
	return startRabbitMQ(ctx, b, cfg)
}
func (kafka) start(ctx context.Context, b *Broker, cfg Config) error { return startKafka(ctx, b, cfg) }
func (natsBroker) start(ctx context.Context, b *Broker, cfg Config) error {
	return startNATS(ctx, b, cfg)
}

func (redisBroker) start(ctx context.Context, b *Broker, cfg Config) error {
	return startRedis(ctx, b, cfg)
}

func (mosquitto) start(ctx context.Context, b *Broker, cfg Config) error {
	return startMosquitto(ctx, b, cfg)
}

func (rabbitMQ) probe(ctx context.Context, addr string, tc *tls.Config) (string, error) {
	return probeRabbitMQ(ctx, addr, tc)
}

func (kafka) probe(ctx context.Context, addr string, tc *tls.Config) (string, error) {
	return probeKafka(ctx, addr, tc)
}

func (natsBroker) probe(ctx context.Context, addr string, tc *tls.Config) (string, error) {
	return probeNATS(ctx, addr, tc)
}

func (redisBroker) probe(ctx context.Context, addr string, tc *tls.Config) (string, error) {
	return probeRedis(ctx, addr, tc)
}

func (mosquitto) probe(ctx context.Context, addr string, tc *tls.Config) (string, error) {
	return probeMosquitto(ctx, addr, tc)
}

// Names are the brokers, sorted.
var Names = slices.Sorted(maps.Keys(technologies))

// DefaultAddr is where each broker listens unless configured otherwise:
// the brokers' usual ports, on loopback.
var DefaultAddr = map[string]string{
	"rabbitmq":  "127.0.0.1:5672",
	"kafka":     "127.0.0.1:9092",
	"nats":      "127.0.0.1:4222",
	"redis":     "127.0.0.1:6379",
	"mosquitto": "127.0.0.1:1883",
}

// DefaultTLSAddr is where a broker started with TLS takes TLS clients,
// beside its plain listener: the brokers' usual TLS ports. NATS takes TLS
// and plain clients on one port (allow_non_tls), so its TLS address is its
// address, but for mutual TLS, which needs a listener of its own.
var DefaultTLSAddr = map[string]string{
	"rabbitmq":  "127.0.0.1:5671",
	"kafka":     "127.0.0.1:9093",
	"nats":      "127.0.0.1:4223",
	"redis":     "127.0.0.1:6380",
	"mosquitto": "127.0.0.1:8883",
}

// DefaultTLSAddrFor is where a broker at its usual address takes TLS
// clients, with client certificates (mutual) or without: NATS takes TLS
// beside plain clients on its one port, and has a listener of its own
// for mutual TLS only.
func DefaultTLSAddrFor(name string, mutual bool) string {
	if name == "nats" && !mutual {
		return DefaultAddr[name]
	}
	return DefaultTLSAddr[name]
}

// Broker is a broker that answers at Addr.
type Broker struct {
	Name    string `json:"name"`
	Addr    string `json:"addr"`
	Version string `json:"version"`
	// PID is the broker's process (for RabbitMQ, the Erlang VM; for Kafka,
	// the JVM), 0 when it is not on this machine's process table.
	PID int `json:"pid"`
	// Started is true when hopbench started it, so hopbench stops it.
	Started bool `json:"started"`
	// Log is the broker's log file, when hopbench started it.
	Log string `json:"log,omitempty"`
	// Extra are the other processes hopbench started with it (RabbitMQ's
	// epmd), stopped after it.
	Extra []int `json:"extra,omitempty"`
	// StartTimes are the start times (clock ticks since boot, from
	// /proc/PID/stat) of PID and Extra, by PID: a state file's PID is
	// signalled only while it is still that process, never a stranger
	// that reuses the number.
	StartTimes map[string]uint64 `json:"start_times,omitempty"`
	// TLSAddr is where it takes TLS clients, with the certificates of
	// TLSDir (client certificates required when MTLS); empty without TLS.
	TLSAddr string `json:"tls_addr,omitempty"`
	TLSDir  string `json:"tls_dir,omitempty"`
	MTLS    bool   `json:"mtls,omitempty"`
	// ProxyAddr is where a proxy in front of the broker listens when the
	// broker's clients call the addresses it advertises (Kafka): it
	// advertises ProxyAddr on a listener of its own, at ProxyUpstream,
	// which the proxy relays to. Empty for other brokers.
	ProxyAddr     string `json:"proxy_addr,omitempty"`
	ProxyUpstream string `json:"proxy_upstream,omitempty"`

	dir  string
	proc *process
	stop func() error // in-process brokers
	cfg  Config
	// noTLS says why a broker found running cannot take TLS as asked.
	noTLS error
	// use is this process's lease on the broker, held from Start to Stop.
	use *lease.Lease
}

// Start returns the named broker answering at cfg.Addr: the one already
// there, used as is, or one started now and ready. A broker that fails to
// start is stopped, and the error carries the tail of its log.
func Start(ctx context.Context, name string, cfg Config) (*Broker, error) {
	cfg, err := cfg.withDefaults(name)
	if err != nil {
		return nil, err
	}
	unlock, err := lockStart(ctx, name, cfg)
	if err != nil {
		return nil, err
	}
	defer unlock()
	b, err := start(ctx, name, cfg)
	if err != nil {
		return nil, err
	}
	if b.use, err = lease.Take(usersDir(name, b.Addr)); err != nil {
		b.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// lockStart keeps other hopbench processes from starting the broker at
// cfg.Addr, or any broker in its data directory, until unlock: the second
// of two runs that need it at once waits, then finds it answering.
func lockStart(ctx context.Context, name string, cfg Config) (unlock func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.ReadyTimeout+30*time.Second)
	defer cancel()
	var held []*lease.Lease
	unlock = func() {
		for _, l := range held {
			l.Release()
		}
	}
	for _, path := range []string{filepath.Join(usersDir(name, cfg.Addr), "start.lock"), filepath.Join(cfg.Dir, "start.lock")} {
		l, err := lease.Lock(ctx, path, func(h lease.Holder) {
			cfg.notify("%s: waiting for %s, which is starting it (%s)", name, h, filepath.Dir(path))
		})
		if err != nil {
			unlock()
			return nil, fmt.Errorf("%s: another hopbench process is starting it: %w", name, err)
		}
		held = append(held, l)
	}
	return unlock, nil
}

// start finds the broker answering at cfg.Addr or starts it.
func start(ctx context.Context, name string, cfg Config) (*Broker, error) {
	if version, err := Probe(ctx, name, cfg.Addr); err == nil {
		b := &Broker{Name: name, Addr: cfg.Addr, Version: version, PID: ListenerPID(cfg.Addr), cfg: cfg}
		if t := startTime(b.PID); t != 0 {
			b.StartTimes = map[string]uint64{strconv.Itoa(b.PID): t}
		}
		b.adopt(ctx, cfg)
		return b, nil
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("%s: data directory: %w", name, err)
	}
	b := &Broker{Name: name, Addr: cfg.Addr, Started: true, dir: cfg.Dir, cfg: cfg}
	if cfg.TLSDir != "" {
		if _, err := certs.LoadOrCreate(cfg.TLSDir); err != nil {
			return nil, fmt.Errorf("%s TLS: %w", name, err)
		}
		b.TLSAddr, b.TLSDir, b.MTLS = cfg.TLSAddr, cfg.TLSDir, cfg.MTLS
	}
	if err := technologies[name].start(ctx, b, cfg); err != nil {
		b.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	if err := b.awaitReady(ctx, cfg.ReadyTimeout); err != nil {
		b.Close()
		return nil, fmt.Errorf("starting %s at %s: %w", name, cfg.Addr, err)
	}
	if b.proc != nil {
		b.PID = b.proc.pid()
	}
	if name == "kafka" {
		b.Version = KafkaVersion // exact, where the probe can only guess
	}
	if err := b.writeState(); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// adopt learns how a broker found running takes TLS and proxies from
// the state of the hopbench that started it (its certificates are then
// the ones to use), or, when cfg asks for TLS, by trying cfg's
// certificates. TLS is checked only when asked for; a broker that cannot
// take it keeps no TLS address, and NeedTLS says why.
func (b *Broker) adopt(ctx context.Context, cfg Config) {
	saved, err := readState(cfg.Dir)
	ours := err == nil && saved.Addr == b.Addr && saved.still(saved.PID)
	if ours {
		b.ProxyAddr, b.ProxyUpstream = saved.ProxyAddr, saved.ProxyUpstream
	}
	if ours && saved.TLSAddr != "" {
		b.TLSAddr, b.TLSDir, b.MTLS = saved.TLSAddr, saved.TLSDir, saved.MTLS
	} else if cfg.TLSDir != "" {
		b.TLSAddr, b.TLSDir, b.MTLS = cfg.TLSAddr, cfg.TLSDir, cfg.MTLS
	}
	if b.TLSAddr == "" || cfg.TLSDir == "" {
		return
	}
	if err := b.probeTLS(ctx); err != nil {
		b.noTLS = fmt.Errorf("%s at %s is running, but does not take TLS at %s with the certificates of %s (%v): stop it (hopbench brokers down %s) so that hopbench starts it with TLS, or start it with hopbench brokers up --tls-dir DIR", b.Name, b.Addr, b.TLSAddr, b.TLSDir, err, b.Name)
		b.TLSAddr, b.TLSDir, b.MTLS = "", "", false
	}
}

// NeedTLS returns nil when the broker takes TLS clients (client
// certificates required when mutual, if the broker itself does not demand
// them), else why not and how to fix it.
func (b *Broker) NeedTLS(mutual bool) error {
	switch {
	case b.TLSAddr == "" && b.noTLS != nil:
		return b.noTLS
	case b.TLSAddr == "":
		return fmt.Errorf("%s at %s was started without TLS: stop it (hopbench brokers down %s) so that hopbench starts it with TLS, or start it with hopbench brokers up --tls-dir DIR", b.Name, b.Addr, b.Name)
	case mutual && !b.MTLS:
		return fmt.Errorf("%s at %s takes TLS clients without a certificate, and mutual TLS is asked for: stop it (hopbench brokers down %s), or start it with hopbench brokers up --tls-dir DIR --mtls", b.Name, b.TLSAddr, b.Name)
	}
	return nil
}

// ProxyLeg says where a proxy in front of the broker, reached at addr,
// listens and what it relays to: at any free address (listen "") to
// addr, or, for a broker whose clients call the addresses it advertises
// (Kafka), at the address it advertises for a proxy, to its listener
// behind that. tls says the run's clients speak TLS to the broker.
func (b *Broker) ProxyLeg(addr string, tls bool) (listen, upstream string, err error) {
	if !advertisesAddresses[b.Name] {
		return "", addr, nil
	}
	switch {
	case b.ProxyAddr == "":
		return "", "", fmt.Errorf("%s at %s has no listener for a proxy in front of it (its clients call the addresses it advertises, and it advertises none for a proxy: hopbench did not start it, or an older hopbench did): stop it (hopbench brokers down %s) so that hopbench starts it with one", b.Name, b.Addr, b.Name)
	case tls:
		return "", "", fmt.Errorf("%s with a proxy: %s", b.Name, PlainProxyListener)
	}
	return b.ProxyAddr, b.ProxyUpstream, nil
}

// probeTLS checks that the broker takes TLS clients at TLSAddr with the
// certificates of TLSDir.
func (b *Broker) probeTLS(ctx context.Context) error {
	bundle, err := certs.Load(b.TLSDir)
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err = ProbeTLS(pctx, b.Name, b.TLSAddr, bundle.Client(b.MTLS))
	return err
}

// awaitReady polls the broker until it answers (over TLS too, when it has
// a TLS listener), exits, or time runs out.
func (b *Broker) awaitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var err error
	for {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		b.Version, err = Probe(pctx, b.Name, b.Addr)
		cancel()
		if err == nil && b.TLSAddr != "" {
			if err = b.probeTLS(ctx); err != nil {
				err = fmt.Errorf("over TLS at %s: %w", b.TLSAddr, err)
			}
		}
		if err == nil {
			return nil
		}
		if b.proc != nil && b.proc.exited() {
			return fmt.Errorf("it exited (%v) before it answered%s", b.proc.exitErr(), b.logTail())
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer within %v (last: %v)%s", timeout, err, b.logTail())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logTail is the last lines of the broker's log, for errors.
func (b *Broker) logTail() string {
	if b.Log == "" {
		return ""
	}
	data, err := os.ReadFile(b.Log)
	if err != nil || len(data) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	lines = lines[max(0, len(lines)-20):]
	return fmt.Sprintf("; the end of its log (%s):\n  %s", b.Log, strings.Join(lines, "\n  "))
}

// Done is closed when a broker this process started exits; nil for a
// broker it did not start or runs in process.
func (b *Broker) Done() <-chan struct{} {
	if b.proc == nil {
		return nil
	}
	return b.proc.done
}

// Leave gives up this process's lease and leaves the broker running, for
// hopbench brokers up.
func (b *Broker) Leave() {
	b.use.Release()
	b.use = nil
}

// Gone reports whether the broker has exited (or its port closed, when
// its process cannot be seen), whoever started it.
func (b *Broker) Gone() bool {
	switch {
	case b.proc != nil:
		return b.proc.exited()
	case b.stop != nil:
		return false // in this process
	case b.StartTimes[strconv.Itoa(b.PID)] != 0:
		return !b.still(b.PID)
	}
	c, err := net.DialTimeout("tcp", b.Addr, time.Second)
	if err != nil {
		return true
	}
	c.Close()
	return false
}

// Stop gives up this process's lease and, if this process started the
// broker, stops it as Close does; but first it waits while other hopbench
// processes use it, until ctx ends, saying whom it waits for (Notify).
func (b *Broker) Stop(ctx context.Context) error {
	b.use.Release()
	if b.Started {
		b.awaitUsers(ctx)
	}
	return b.Close()
}

// awaitUsers waits while other processes hold leases on the broker, it
// is alive and ctx lasts.
func (b *Broker) awaitUsers(ctx context.Context) {
	told := false
	for !b.Gone() {
		users, _ := lease.Holders(usersDir(b.Name, b.Addr), nil)
		switch {
		case len(users) == 0:
			return
		case ctx.Err() != nil:
			b.cfg.notify("%s at %s: stopping it though %s still uses it (interrupted)", b.Name, b.Addr, users[0])
			return
		case !told:
			b.cfg.notify("%s at %s, started by this run, is in use by %s: waiting for it to finish before stopping it (Ctrl-C stops it now)", b.Name, b.Addr, users[0])
			told = true
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Close stops the broker if this process started it, waiting for it to
// exit, without waiting for its other users (Stop does); a broker found
// already running is left alone.
func (b *Broker) Close() error {
	b.use.Release()
	if !b.Started {
		return nil
	}
	var errs []error
	if b.stop != nil {
		errs = append(errs, b.stop())
	}
	if b.proc != nil {
		errs = append(errs, b.proc.terminate(30*time.Second))
	}
	for _, pid := range b.Extra {
		errs = append(errs, stopPID(pid, 5*time.Second))
	}
	if b.dir != "" {
		os.Remove(statePath(b.dir))
	}
	return errors.Join(errs...)
}

// Usage is a broker's resource figures now.
func (b *Broker) Usage() (stats.Proc, error) {
	if b.PID == 0 {
		return stats.Proc{}, fmt.Errorf("%s: no process on this machine", b.Name)
	}
	return stats.ReadProc(b.PID)
}
