package broker

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/eclipse/paho.golang/packets"
	"github.com/eclipse/paho.golang/paho"

	"github.com/hopbench/hopbench/internal/certs"
)

// mosquittoServer is Debian's mosquitto broker (scripts/setup.sh mosquitto
// installs the package without starting its service).
const mosquittoServer = "/usr/sbin/mosquitto"

// MosquittoMaxPacket is the largest MQTT packet the mosquitto broker takes
// (max_packet_size): hopbench's 64 MiB body limit and room for the
// packet's topic and properties (MQTT's own limit is 256 MiB).
const MosquittoMaxPacket = 64<<20 + 1<<20

// startMosquitto runs a mosquitto broker of its own in the foreground:
// its configuration, persistence and log under the data directory, MQTT on
// cfg.Addr only, and MQTT over TLS on cfg.TLSAddr with TLS.
func startMosquitto(_ context.Context, b *Broker, cfg Config) error {
	if _, err := os.Stat(mosquittoServer); err != nil {
		return fmt.Errorf("%s not found: install Debian's mosquitto (scripts/setup.sh mosquitto does)", mosquittoServer)
	}
	b.Log = filepath.Join(cfg.Dir, "mosquitto.log")
	conf, err := writeMosquittoConfig(cfg, b.Log)
	if err != nil {
		return err
	}
	p, err := spawn([]string{mosquittoServer, "-c", conf}, nil, cfg.Dir, b.Log, cfg.Detach)
	if err != nil {
		return err
	}
	b.proc = p
	return nil
}

// writeMosquittoConfig writes the broker's configuration into cfg.Dir,
// anew at every start, and returns its path. Every listener names its
// address: mosquitto's default is every interface.
func writeMosquittoConfig(cfg Config, logPath string) (string, error) {
	data := filepath.Join(cfg.Dir, "data") + "/" // mosquitto wants the slash
	if err := os.MkdirAll(data, 0o755); err != nil {
		return "", fmt.Errorf("mosquitto: data directory: %w", err)
	}
	text := fmt.Sprintf(`# written by hopbench at every start
# anonymous clients: every listener is on loopback
allow_anonymous true
persistence true
persistence_location %s
log_dest file %s
log_timestamp_format %%Y-%%m-%%dT%%H:%%M:%%S
# request/reply: small packets go out at once (mosquitto leaves Nagle on)
set_tcp_nodelay true
# bodies up to hopbench's 64 MiB
max_packet_size %d
# messages waiting for a client beyond those in flight, bounded
max_queued_messages 10000
max_queued_bytes %d
`, data, logPath, MosquittoMaxPacket, 4*MosquittoMaxPacket)
	if os.Geteuid() == 0 {
		// As root, mosquitto would switch to the mosquitto user, which
		// cannot write this data directory.
		text += "user root\n"
	}
	listener, err := mosquittoListener(cfg.Addr)
	if err != nil {
		return "", err
	}
	text += listener
	if cfg.TLSDir != "" {
		if listener, err = mosquittoListener(cfg.TLSAddr); err != nil {
			return "", err
		}
		ca, cert, key := certs.ServerFiles(cfg.TLSDir)
		text += fmt.Sprintf("# MQTT over TLS beside MQTT, with hopbench's certificates\n%scafile %s\ncertfile %s\nkeyfile %s\nrequire_certificate %t\n",
			listener, ca, cert, key, cfg.MTLS)
	}
	conf := filepath.Join(cfg.Dir, "mosquitto.conf")
	return conf, os.WriteFile(conf, []byte(text), 0o644)
}

// mosquittoListener is a listener line for addr, its host named.
func mosquittoListener(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return "", fmt.Errorf("mosquitto: address %q: want host:port, e.g. 127.0.0.1:1883", addr)
	}
	return fmt.Sprintf("listener %s %s\n", port, host), nil
}

// probeMosquitto connects over MQTT 5 and reads the version mosquitto
// publishes, retained, at $SYS/broker/version; a broker that publishes
// none (its $SYS tree turned off, or another MQTT broker) answers
// "mosquitto" once connected.
func probeMosquitto(ctx context.Context, addr string, tc *tls.Config) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := dialMQTT(ctx, addr, tc)
	if err != nil {
		return "", err
	}
	version := make(chan string, 1)
	lost := make(chan error, 1)
	cl := paho.NewClient(paho.ClientConfig{
		Conn: packets.NewThreadSafeConn(conn),
		OnPublishReceived: []func(paho.PublishReceived) (bool, error){func(p paho.PublishReceived) (bool, error) {
			select {
			case version <- strings.TrimPrefix(string(p.Packet.Payload), "mosquitto version "):
			default:
			}
			return true, nil
		}},
		OnClientError: func(err error) { sendErr(lost, err) },
		OnServerDisconnect: func(d *paho.Disconnect) {
			sendErr(lost, fmt.Errorf("the broker disconnected: reason %d", d.ReasonCode))
		},
	})
	if _, err := cl.Connect(ctx, &paho.Connect{ClientID: "hopbench-probe-" + rand.Text()[:12], CleanStart: true, KeepAlive: 30}); err != nil {
		return "", fmt.Errorf("MQTT at %s: %w", addr, err)
	}
	defer func() { cl.Disconnect(&paho.Disconnect{}); <-cl.Done() }()
	if _, err := cl.Subscribe(ctx, &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: "$SYS/broker/version"}}}); err != nil {
		return "mosquitto", nil // connected: an MQTT broker that keeps $SYS to itself
	}
	select {
	case v := <-version:
		return v, nil
	case err := <-lost:
		return "", fmt.Errorf("MQTT at %s: %w", addr, err)
	case <-time.After(time.Second):
		return "mosquitto", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// dialMQTT opens a connection to addr, over TLS with tc when set.
func dialMQTT(ctx context.Context, addr string, tc *tls.Config) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil || tc == nil {
		return conn, err
	}
	tc = tc.Clone()
	if tc.ServerName == "" {
		tc.ServerName, _, _ = net.SplitHostPort(addr)
	}
	tconn := tls.Client(conn, tc)
	if err := tconn.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("TLS to %s: %w", addr, err)
	}
	return tconn, nil
}

func sendErr(ch chan error, err error) {
	if err == nil {
		err = errors.New("connection closed")
	}
	select {
	case ch <- err:
	default:
	}
}
