package broker

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hopbench/hopbench/internal/certs"
)

// redisServer is Debian's redis-server (scripts/setup.sh redis installs the
// package, without starting its service); Debian builds it with TLS.
const redisServer = "/usr/bin/redis-server"

// startRedis runs a Redis server of its own in the foreground, with a
// configuration written into cfg.Dir: loopback only, its data (the
// append-only file) and log in the directory, TLS beside the plain port
// when asked for.
func startRedis(_ context.Context, b *Broker, cfg Config) error {
	if _, err := os.Stat(redisServer); err != nil {
		return fmt.Errorf("%s not found: install Debian's redis-server (scripts/setup.sh redis does)", redisServer)
	}
	b.Log = filepath.Join(cfg.Dir, "redis.log")
	conf, err := writeRedisConfig(cfg, b.Log)
	if err != nil {
		return err
	}
	p, err := spawn([]string{redisServer, conf}, nil, cfg.Dir, b.Log, cfg.Detach)
	if err != nil {
		return err
	}
	b.proc = p
	return nil
}

// writeRedisConfig writes redis.conf into cfg.Dir, anew at every start,
// and returns its path.
func writeRedisConfig(cfg Config, logPath string) (string, error) {
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return "", err
	}
	hosts := []string{host}
	text := fmt.Sprintf(`# written by hopbench at every start
daemonize no
protected-mode yes
port %s
dir %s
logfile %s
# the request and reply streams survive a restart as far as the last second
# (appendfsync everysec); no snapshots
appendonly yes
appendfsync everysec
save ""
`, port, redisQuote(cfg.Dir), redisQuote(logPath))
	if cfg.TLSDir != "" {
		tlsHost, tlsPort, err := net.SplitHostPort(cfg.TLSAddr)
		if err != nil {
			return "", err
		}
		if !slices.Contains(hosts, tlsHost) {
			hosts = append(hosts, tlsHost)
		}
		ca, cert, key := certs.ServerFiles(cfg.TLSDir)
		auth := "no"
		if cfg.MTLS {
			auth = "yes"
		}
		text += fmt.Sprintf(`# TLS beside the plain port, with hopbench's certificates
tls-port %s
tls-cert-file %s
tls-key-file %s
tls-ca-cert-file %s
tls-auth-clients %s
`, tlsPort, redisQuote(cert), redisQuote(key), redisQuote(ca), auth)
	}
	text += "# loopback only: the configured addresses' hosts\nbind " + strings.Join(hosts, " ") + "\n"
	path := filepath.Join(cfg.Dir, "redis.conf")
	return path, os.WriteFile(path, []byte(text), 0o644)
}

// redisQuote is s as a double-quoted string of redis.conf, which a path
// with spaces needs.
func redisQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
