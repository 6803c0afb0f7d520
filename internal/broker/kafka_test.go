package broker

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// Kafka's listeners: its clients' (TLS beside plain when asked), its
// controller's, and a plain one for a proxy advertising the proxy's
// front, each key written once.
func TestKafkaAdvertisesTheProxysFrontOnAListenerOfItsOwn(t *testing.T) {
	l := kafkaListeners{plain: "127.0.0.1:9092", controller: "127.0.0.1:7001", proxied: "127.0.0.1:7002", proxyFront: "127.0.0.1:7003"}
	want := `listeners=PLAINTEXT://127.0.0.1:9092,PROXIED://127.0.0.1:7002,CONTROLLER://127.0.0.1:7001
advertised.listeners=PLAINTEXT://127.0.0.1:9092,PROXIED://127.0.0.1:7003
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.voters=1@127.0.0.1:7001
inter.broker.listener.name=PLAINTEXT
`
	if got := l.String(); got != want {
		t.Errorf("without TLS:\n%s\nwant\n%s", got, want)
	}
	l.tls = "127.0.0.1:9093"
	got := l.String()
	for _, line := range []string{
		"listeners=PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.1:9093,PROXIED://127.0.0.1:7002,CONTROLLER://127.0.0.1:7001\n",
		"advertised.listeners=PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.1:9093,PROXIED://127.0.0.1:7003\n",
		"listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,PROXIED:PLAINTEXT,CONTROLLER:PLAINTEXT\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("with TLS: no line %q in\n%s", line, got)
		}
	}
}

// The proxy's front, advertised before anything listens on it, is a free
// port below the kernel's ephemeral ones, which no connection is given.
func TestKafkasProxyFrontIsBelowTheEphemeralPorts(t *testing.T) {
	below := ephemeralPortsFrom()
	if below-stablePortsFrom < 1000 {
		t.Skipf("the ephemeral ports start at %d: no room below them", below)
	}
	for range 20 {
		l, err := newKafkaListeners(Config{Addr: "127.0.0.1:9092"})
		if err != nil {
			t.Fatal(err)
		}
		_, p, _ := net.SplitHostPort(l.proxyFront)
		port, _ := strconv.Atoi(p)
		if port < stablePortsFrom || port >= below {
			t.Fatalf("proxy front %s: want a port in [%d, %d)", l.proxyFront, stablePortsFrom, below)
		}
		ln, err := net.Listen("tcp", l.proxyFront)
		if err != nil {
			t.Fatalf("proxy front %s is not free: %v", l.proxyFront, err)
		}
		ln.Close()
	}
}
