package broker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hopbench/hopbench/internal/certs"
)

// rabbitmqServer is Debian's rabbitmq-server start script (scripts/setup.sh
// installs the package). The script in /usr/sbin would switch to the
// rabbitmq user; this one runs the broker as whoever starts it.
const rabbitmqServer = "/usr/lib/rabbitmq/bin/rabbitmq-server"

// startRabbitMQ runs a RabbitMQ node of its own: its own node name, Erlang
// port mapper and distribution port, data, log and cookie under the data
// directory, no plugins, and AMQP on cfg.Addr only.
func startRabbitMQ(_ context.Context, b *Broker, cfg Config) error {
	if _, err := os.Stat(rabbitmqServer); err != nil {
		return fmt.Errorf("%s not found: install Debian's rabbitmq-server (scripts/setup.sh rabbitmq does)", rabbitmqServer)
	}
	epmd, err := exec.LookPath("epmd")
	if err != nil {
		if epmd, err = firstGlob("/usr/lib/erlang/erts-*/bin/epmd"); err != nil {
			return fmt.Errorf("epmd (Erlang's port mapper) not found: install Debian's rabbitmq-server (scripts/setup.sh rabbitmq does)")
		}
	}
	epmdPort, err := freePort()
	if err != nil {
		return err
	}
	distPort, err := freePort()
	if err != nil {
		return err
	}
	if err := writeRabbitMQConfig(cfg); err != nil {
		return err
	}
	b.Log = filepath.Join(cfg.Dir, "rabbitmq.log")

	// Erlang nodes find each other through epmd; a private one on a free
	// port is stopped with the broker, where the shared default one would
	// outlive it.
	ep, err := spawn([]string{epmd, "-port", strconv.Itoa(epmdPort), "-address", "127.0.0.1"}, nil, cfg.Dir, b.Log, cfg.Detach)
	if err != nil {
		return err
	}
	b.Extra = append(b.Extra, ep.pid())
	if err := awaitPort("127.0.0.1:"+strconv.Itoa(epmdPort), 10*time.Second, ep); err != nil {
		return fmt.Errorf("epmd: %w", err)
	}
	// Erlang refuses a cookie others can read, which a copied or checked-out
	// data directory can have; the broker writes it 0600 itself.
	if err := os.Chmod(filepath.Join(cfg.Dir, ".erlang.cookie"), 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("rabbitmq: the Erlang cookie: %w", err)
	}
	p, err := spawn([]string{rabbitmqServer}, rabbitMQEnv(cfg, epmdPort, distPort), cfg.Dir, b.Log, cfg.Detach)
	if err != nil {
		return err
	}
	b.proc = p
	return nil
}

// writeRabbitMQConfig writes the node's configuration (AMQP on cfg.Addr
// only, and AMQPS on cfg.TLSAddr with TLS) and its empty plugin list into
// cfg.Dir.
func writeRabbitMQConfig(cfg Config) error {
	confText := fmt.Sprintf(`# written by hopbench at every start
listeners.tcp.default = %s
# guest may connect: only loopback listens
loopback_users = none
# a lab broker: do not stop publishers over disk space on a shared machine
disk_free_limit.absolute = 50MB
`, cfg.Addr)
	if cfg.TLSDir != "" {
		ca, cert, key := certs.ServerFiles(cfg.TLSDir)
		verify, required := "verify_none", "false"
		if cfg.MTLS {
			verify, required = "verify_peer", "true"
		}
		confText += fmt.Sprintf(`# AMQPS beside AMQP, with hopbench's certificates
listeners.ssl.default = %s
ssl_options.cacertfile = %s
ssl_options.certfile = %s
ssl_options.keyfile = %s
ssl_options.verify = %s
ssl_options.fail_if_no_peer_cert = %s
`, cfg.TLSAddr, ca, cert, key, verify, required)
	}
	if err := os.WriteFile(filepath.Join(cfg.Dir, "rabbitmq.conf"), []byte(confText), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(cfg.Dir, "enabled_plugins"), []byte("[].\n"), 0o644)
}

// rabbitMQEnv is the environment that makes rabbitmq-server this node:
// its name, ports, directories and files.
func rabbitMQEnv(cfg Config, epmdPort, distPort int) []string {
	_, amqpPort, _ := net.SplitHostPort(cfg.Addr)
	return []string{
		"HOME=" + cfg.Dir, // the Erlang cookie lives there
		"ERL_EPMD_PORT=" + strconv.Itoa(epmdPort),
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"RABBITMQ_NODENAME=hopbench-" + amqpPort + "@localhost",
		"RABBITMQ_DIST_PORT=" + strconv.Itoa(distPort),
		"RABBITMQ_BASE=" + cfg.Dir,
		"RABBITMQ_MNESIA_BASE=" + filepath.Join(cfg.Dir, "mnesia"),
		"RABBITMQ_LOG_BASE=" + filepath.Join(cfg.Dir, "log"),
		"RABBITMQ_CONFIG_FILE=" + filepath.Join(cfg.Dir, "rabbitmq.conf"),
		"RABBITMQ_ADVANCED_CONFIG_FILE=" + filepath.Join(cfg.Dir, "advanced.config"),
		"RABBITMQ_ENABLED_PLUGINS_FILE=" + filepath.Join(cfg.Dir, "enabled_plugins"),
		"RABBITMQ_PID_FILE=" + filepath.Join(cfg.Dir, "rabbitmq.pid"),
		"RABBITMQ_LOGS=-", // to the log file spawn gives it
		// Its own epmd, and Erlang distribution on loopback only (it
		// listens on every interface by default).
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-start_epmd false -kernel inet_dist_use_interface {127,0,0,1}",
		// The script execs the Erlang VM in its place, so the process we
		// hold is the broker (and SIGTERM stops it cleanly).
		"RABBITMQ_ALLOW_INPUT=true",
	}
}

// awaitPort waits until addr accepts connections or p exits.
func awaitPort(addr string, timeout time.Duration, p *process) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if p.exited() {
			return fmt.Errorf("exited: %v", p.exitErr())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening on %s within %v", addr, timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func firstGlob(pattern string) (string, error) {
	m, _ := filepath.Glob(pattern)
	if len(m) == 0 {
		return "", os.ErrNotExist
	}
	return m[len(m)-1], nil
}
