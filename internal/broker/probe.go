package broker

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Probe checks that the named broker answers its protocol at addr and
// returns the version it reports.
func Probe(ctx context.Context, name, addr string) (string, error) {
	return ProbeTLS(ctx, name, addr, nil)
}

// ProbeTLS is Probe over TLS with tc (plain text when tc is nil).
func ProbeTLS(ctx context.Context, name, addr string, tc *tls.Config) (string, error) {
	t, ok := technologies[name]
	if !ok {
		return "", fmt.Errorf("unknown broker %q", name)
	}
	// A closed port fails fast without a protocol client's retries.
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	c.Close()
	return t.probe(ctx, addr, tc)
}

func probeRabbitMQ(ctx context.Context, addr string, tc *tls.Config) (string, error) {
	timeout := 5 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	scheme := "amqp"
	if tc != nil {
		scheme = "amqps"
	}
	conn, err := amqp.DialConfig(scheme+"://guest:guest@"+addr+"/", amqp.Config{Dial: amqp.DefaultDial(timeout), TLSClientConfig: tc})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	version, _ := conn.Properties["version"].(string)
	product, _ := conn.Properties["product"].(string)
	if product != "" && product != "RabbitMQ" {
		return "", fmt.Errorf("%s answers AMQP as %q, not RabbitMQ", addr, product)
	}
	return version, nil
}

func probeKafka(ctx context.Context, addr string, tc *tls.Config) (string, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.RequestRetries(0), kgo.DialTimeout(5 * time.Second)}
	if tc != nil {
		opts = append(opts, kgo.DialTLSConfig(tc.Clone()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return "", err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	// Ready means a registered broker that can serve metadata, not only a
	// listening socket.
	md, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return "", err
	}
	if len(md.Brokers) == 0 || md.Controller < 0 {
		return "", fmt.Errorf("kafka at %s has no registered broker and controller yet", addr)
	}
	vs, err := adm.ApiVersions(ctx)
	if err != nil {
		return "", err
	}
	for _, v := range vs.Sorted() {
		if v.Err == nil {
			// Kafka does not say its version; the guess is from the API
			// versions it supports, e.g. "at least v4.1".
			return v.VersionGuess(), nil
		}
	}
	return "", fmt.Errorf("kafka at %s: no API versions", addr)
}

func probeNATS(ctx context.Context, addr string, tc *tls.Config) (string, error) {
	timeout := 5 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	opts := []nats.Option{nats.Timeout(timeout), nats.NoReconnect(), nats.Name("hopbench probe")}
	if tc != nil {
		opts = append(opts, nats.Secure(tc.Clone()))
	}
	nc, err := nats.Connect("nats://"+addr, opts...)
	if err != nil {
		return "", err
	}
	defer nc.Close()
	return nc.ConnectedServerVersion(), nil
}

// probeRedis asks the server for PING, then for its version (INFO
// server's redis_version): ready means it serves commands, not only that
// it listens (it refuses them while it loads its append-only file).
func probeRedis(ctx context.Context, addr string, tc *tls.Config) (string, error) {
	opts := &redis.Options{Addr: addr, DialTimeout: 5 * time.Second, MaxRetries: -1, DialerRetries: 1,
		ContextTimeoutEnabled: true, PoolSize: 1, DisableIdentity: true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}}
	if tc != nil {
		opts.TLSConfig = tc.Clone()
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return "", err
	}
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("%s answers Redis's PING but its INFO server names no redis_version", addr)
}
