package broker

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/hopbench/hopbench/internal/certs"
	"github.com/hopbench/hopbench/internal/toolpath"
)

// KafkaVersion is the Apache Kafka broker deploy/kafka/pom.xml fetches;
// keep the two in step.
const KafkaVersion = "4.3.1"

// kafkaJVMOptions are kafka-server-start.sh's defaults (heap and GC).
var kafkaJVMOptions = []string{
	"-Xmx1G", "-Xms1G",
	"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35",
	"-XX:+ExplicitGCInvokesConcurrent", "-Djava.awt.headless=true",
}

// FindKafkaLibs returns the directory of the Kafka broker jars: the
// HOPBENCH_KAFKA_LIBS environment variable, or .tools/kafka/VERSION/libs in
// the directory of this executable or of the working directory, or one of
// their parents (scripts/setup.sh kafka puts the jars there).
func FindKafkaLibs() (string, error) {
	if dir := os.Getenv("HOPBENCH_KAFKA_LIBS"); dir != "" {
		return dir, nil
	}
	rel := filepath.Join(".tools", "kafka", KafkaVersion, "libs")
	hasJars := func(dir string) bool { m, _ := filepath.Glob(filepath.Join(dir, "kafka_*.jar")); return len(m) > 0 }
	if dir, ok := toolpath.Find(rel, hasJars); ok {
		return dir, nil
	}
	return "", fmt.Errorf("the Kafka %s broker jars were not found in %s (here or in a parent directory): run scripts/setup.sh kafka, which fetches them with Maven, or set HOPBENCH_KAFKA_LIBS", KafkaVersion, rel)
}

// startKafka runs a single Kafka node in KRaft mode, broker and controller
// at once, listening on cfg.Addr with its controller on a free loopback
// port; its storage is formatted on first start.
func startKafka(_ context.Context, b *Broker, cfg Config) error {
	libs := cfg.KafkaLibs
	if libs == "" {
		var err error
		if libs, err = FindKafkaLibs(); err != nil {
			return err
		}
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return errors.New("java not found: Kafka needs Java 17 (Debian's openjdk-17-jre-headless)")
	}
	l, err := newKafkaListeners(cfg)
	if err != nil {
		return err
	}
	b.ProxyAddr, b.ProxyUpstream = l.proxyFront, l.proxied
	data := filepath.Join(cfg.Dir, "data")
	props, log4j, err := writeKafkaConfig(cfg, l, data)
	if err != nil {
		return err
	}
	b.Log = filepath.Join(cfg.Dir, "kafka.log")
	classpath := filepath.Join(libs, "*")
	jvm := append([]string{java}, kafkaJVMOptions...)
	jvm = append(jvm, "-Dlog4j2.configurationFile="+log4j, "-cp", classpath)
	if _, err := os.Stat(filepath.Join(data, "meta.properties")); err != nil {
		format := exec.Command(jvm[0], append(jvm[1:], "kafka.tools.StorageTool", "format",
			"-t", clusterID(), "-c", props)...)
		if out, err := format.CombinedOutput(); err != nil {
			return fmt.Errorf("formatting its storage: %v: %s", err, out)
		}
	}
	p, err := spawn(append(jvm, "kafka.Kafka", props), nil, cfg.Dir, b.Log, cfg.Detach)
	if err != nil {
		return err
	}
	b.proc = p
	return nil
}

// advertisesAddresses names the brokers whose clients call the addresses
// the broker advertises, not the one they were given.
var advertisesAddresses = map[string]bool{"kafka": true}

// AdvertisesAddresses says whether the named broker's clients call the
// addresses it advertises (a proxy in front of it needs a listener of
// its own: Broker.ProxyLeg).
func AdvertisesAddresses(name string) bool { return advertisesAddresses[name] }

// PlainProxyListener is why such a broker cannot be proxied with TLS, for
// the spec's refusal and ProxyLeg's alike.
const PlainProxyListener = "its broker's listener for a proxy is plain, and a run with tls would bypass it: leave tls out, or the proxy"

// kafkaListeners are a Kafka node's listeners: its clients' (plain, and
// TLS beside it when asked), its controller's, and one for a proxy in
// front of it. Kafka's clients call the addresses a broker advertises on
// the listener they came in by, so a proxy is bypassed unless the broker
// advertises the proxy's address: the proxied listener advertises
// proxyFront, where a run's proxy listens (trial's mesh), relaying to it.
type kafkaListeners struct {
	plain, tls, controller, proxied, proxyFront string
}

// newKafkaListeners takes cfg's addresses and free ports on its host for
// the others, the proxy's front below the ephemeral ports.
func newKafkaListeners(cfg Config) (kafkaListeners, error) {
	host, _, _ := net.SplitHostPort(cfg.Addr)
	l := kafkaListeners{plain: cfg.Addr, tls: cfg.TLSAddr}
	// The controller's and the proxied listener are Kafka's own, bound as
	// it starts; the proxy's front is bound only while a run proxies it,
	// so it comes from below the ephemeral ports, which nothing else is
	// given meanwhile.
	for _, a := range []struct {
		addr *string
		port func() (int, error)
	}{{&l.controller, freePort}, {&l.proxied, freePort}, {&l.proxyFront, stablePort}} {
		port, err := a.port()
		if err != nil {
			return l, err
		}
		*a.addr = net.JoinHostPort(host, strconv.Itoa(port))
	}
	return l, nil
}

// String is the listeners' lines of server.properties.
func (l kafkaListeners) String() string {
	names, advertised, protocols := "PLAINTEXT://"+l.plain, "PLAINTEXT://"+l.plain, "PLAINTEXT:PLAINTEXT"
	if l.tls != "" {
		names, advertised, protocols = names+",SSL://"+l.tls, advertised+",SSL://"+l.tls, protocols+",SSL:SSL"
	}
	return fmt.Sprintf(`listeners=%s,PROXIED://%s,CONTROLLER://%s
advertised.listeners=%s,PROXIED://%s
listener.security.protocol.map=%s,PROXIED:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
controller.quorum.voters=1@%s
inter.broker.listener.name=PLAINTEXT
`, names, l.proxied, l.controller, advertised, l.proxyFront, protocols, l.controller)
}

// kafkaTLSConfig is the SSL listener's settings, with hopbench's
// certificates in PEM stores: the key and certificate in one keystore
// file (private, in the data directory), the CA as the truststore.
func kafkaTLSConfig(cfg Config) (string, error) {
	ca, cert, key := certs.ServerFiles(cfg.TLSDir)
	var pemStore []byte
	for _, f := range []string{key, cert} {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("kafka TLS: %w", err)
		}
		pemStore = append(pemStore, data...)
	}
	keystore := filepath.Join(cfg.Dir, "keystore.pem")
	if err := os.WriteFile(keystore, pemStore, 0o600); err != nil {
		return "", fmt.Errorf("kafka TLS: %w", err)
	}
	auth := "none"
	if cfg.MTLS {
		auth = "required"
	}
	return fmt.Sprintf(`# the SSL listener, with hopbench's certificates
ssl.keystore.type=PEM
ssl.keystore.location=%[1]s
ssl.truststore.type=PEM
ssl.truststore.location=%[2]s
ssl.client.auth=%[3]s
ssl.endpoint.identification.algorithm=
`, keystore, ca, auth), nil
}

// writeKafkaConfig writes the node's server.properties and log4j2
// configuration into cfg.Dir, anew at every start, and returns their
// paths.
func writeKafkaConfig(cfg Config, l kafkaListeners, data string) (props, log4j string, err error) {
	props = filepath.Join(cfg.Dir, "server.properties")
	max := strconv.Itoa(64<<20 + 1<<20) // a 64 MiB body and its envelope
	text := fmt.Sprintf(`# written by hopbench at every start: one node, broker and controller (KRaft)
process.roles=broker,controller
node.id=1
%[1]slog.dirs=%[2]s
# one broker: replication factor 1 everywhere, few internal partitions
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# bodies up to hopbench's 64 MiB limit
message.max.bytes=%[3]s
replica.fetch.max.bytes=%[3]s
# a lab broker: keep little
log.retention.ms=600000
log.segment.bytes=67108864
`, l, data, max)
	if cfg.TLSDir != "" {
		ssl, err := kafkaTLSConfig(cfg)
		if err != nil {
			return "", "", err
		}
		text += ssl
	}
	if err := os.WriteFile(props, []byte(text), 0o644); err != nil {
		return "", "", err
	}
	log4j = filepath.Join(cfg.Dir, "log4j2.properties")
	if err := os.WriteFile(log4j, []byte(`# written by hopbench: the broker logs to its output, which goes to kafka.log
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
logger.kafka.name = kafka
logger.kafka.level = WARN
logger.state.name = state.change.logger
logger.state.level = WARN
logger.apache.name = org.apache.kafka
logger.apache.level = WARN
logger.server.name = kafka.server.KafkaRaftServer
logger.server.level = INFO
`), 0o644); err != nil {
		return "", "", err
	}
	return props, log4j, nil
}

// clusterID is a random Kafka cluster id: 16 bytes, base64url. Like
// Kafka's own Uuid.randomUuid it never starts with '-', which the storage
// tool's argument parser would take for an option (1 start in 64 failed).
func clusterID() string {
	for {
		id := make([]byte, 16)
		rand.Read(id)
		if s := base64.RawURLEncoding.EncodeToString(id); s[0] != '-' {
			return s
		}
	}
}
