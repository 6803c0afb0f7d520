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
	controllerPort, err := freePort()
	if err != nil {
		return err
	}
	data := filepath.Join(cfg.Dir, "data")
	props, log4j, err := writeKafkaConfig(cfg, controllerPort, data)
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

// kafkaTLSConfig adds an SSL listener at cfg.TLSAddr to the properties
// (its listener lines replace the plain ones: the last of a key wins),
// with hopbench's certificates in PEM stores: the key and certificate in
// one keystore file (private, in the data directory), the CA as the
// truststore.
func kafkaTLSConfig(cfg Config, controller string) (string, error) {
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
	return fmt.Sprintf(`# SSL beside PLAINTEXT, with hopbench's certificates
listeners=PLAINTEXT://%[1]s,SSL://%[2]s,CONTROLLER://%[3]s
advertised.listeners=PLAINTEXT://%[1]s,SSL://%[2]s
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL,CONTROLLER:PLAINTEXT
ssl.keystore.type=PEM
ssl.keystore.location=%[4]s
ssl.truststore.type=PEM
ssl.truststore.location=%[5]s
ssl.client.auth=%[6]s
ssl.endpoint.identification.algorithm=
`, cfg.Addr, cfg.TLSAddr, controller, keystore, ca, auth), nil
}

// writeKafkaConfig writes the node's server.properties and log4j2
// configuration into cfg.Dir, anew at every start, and returns their
// paths.
func writeKafkaConfig(cfg Config, controllerPort int, data string) (props, log4j string, err error) {
	host, _, _ := net.SplitHostPort(cfg.Addr)
	props = filepath.Join(cfg.Dir, "server.properties")
	max := strconv.Itoa(64<<20 + 1<<20) // a 64 MiB body and its envelope
	text := fmt.Sprintf(`# written by hopbench at every start: one node, broker and controller (KRaft)
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@%[1]s:%[2]d
listeners=PLAINTEXT://%[3]s,CONTROLLER://%[1]s:%[2]d
advertised.listeners=PLAINTEXT://%[3]s
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=%[4]s
# one broker: replication factor 1 everywhere, few internal partitions
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# bodies up to hopbench's 64 MiB limit
message.max.bytes=%[5]s
replica.fetch.max.bytes=%[5]s
# a lab broker: keep little
log.retention.ms=600000
log.segment.bytes=67108864
`, host, controllerPort, cfg.Addr, data, max)
	if cfg.TLSDir != "" {
		ssl, err := kafkaTLSConfig(cfg, net.JoinHostPort(host, strconv.Itoa(controllerPort)))
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
