#!/usr/bin/env bash
# Installs what hopbench's make targets need and is missing. Idempotent: a
# component already present is left alone, so running it twice is cheap.
#
#   scripts/setup.sh            everything `make run` needs (base)
#   scripts/setup.sh protoc     protoc, for `make generate`
#   scripts/setup.sh rabbitmq   Debian's rabbitmq-server (not started: hopbench
#                               runs its own node on loopback)
#   scripts/setup.sh redis      Debian's redis-server (not started: hopbench runs
#                               its own server on loopback)
#   scripts/setup.sh mosquitto  Debian's mosquitto MQTT broker (not started:
#                               hopbench runs its own on loopback)
#   scripts/setup.sh proxies    Debian's haproxy, nginx and libnginx-mod-stream
#                               (not started: hopbench runs its own sidecars with
#                               configurations under each run's directory)
#   scripts/setup.sh prometheus Debian's prometheus server (not started: the live
#                               metrics test runs its own; `make test` sets it up)
#   scripts/setup.sh kafka      the Apache Kafka broker jars, fetched by Maven
#                               (deploy/kafka/pom.xml) into .tools/kafka
#   scripts/setup.sh chromium   Debian's chromium, for the report's browser test
#                               (`make test` sets it up; `make run` does not need it)
#   scripts/setup.sh xmllint    Debian's libxml2-utils (xmllint), which validates
#                               --junit's XML against the Jenkins JUnit schema in
#                               the tests (`make test` sets it up)
#   scripts/setup.sh jvm        the JVM node (jvm/node, Quarkus), built with Maven
#                               3.9 from Maven Central into .tools/jvm/node, again
#                               only when its sources changed (`make test` does it)
set -euo pipefail

log() { printf 'setup: %s\n' "$*" >&2; }

apt_install() {
	local missing=()
	for pkg in "$@"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		log "need root to install: ${missing[*]} (run: sudo apt-get install ${missing[*]})"
		exit 1
	fi
	log "installing ${missing[*]}"
	# A stale package list is the usual cause of 'unable to locate package'.
	DEBIAN_FRONTEND=noninteractive apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

need_go() {
	command -v go >/dev/null || { log "Go is not installed: install Go (see go.mod for the version)"; exit 1; }
}

setup_protoc() {
	apt_install protobuf-compiler libprotobuf-dev # the latter has the well-known types (timestamp.proto)
}

# Installing a server package (rabbitmq-server, redis-server, prometheus)
# would start a system-wide service where an init system runs; hopbench and
# its tests start their own, so services are kept from starting for the
# install (policy-rc.d), unless a policy is already in place.
apt_install_unstarted() {
	local policy=/usr/sbin/policy-rc.d added=
	if [ "$(id -u)" -eq 0 ] && [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && added=1
	fi
	local ok=0
	apt_install "$@" || ok=$?
	[ -n "$added" ] && rm -f "$policy"
	return "$ok"
}

setup_rabbitmq() {
	[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] && return 0
	apt_install_unstarted rabbitmq-server
}

setup_redis() {
	[ -x /usr/bin/redis-server ] && return 0
	apt_install_unstarted redis-server
}

# hopbench runs /usr/sbin/mosquitto itself, with a configuration of its own
# under its data directory (internal/broker).
setup_mosquitto() {
	[ -x /usr/sbin/mosquitto ] && return 0
	apt_install_unstarted mosquitto
}

# The proxies of a spec's `proxy:` (internal/proxy): hopbench runs
# /usr/sbin/haproxy and /usr/sbin/nginx itself, in the foreground, with
# configurations of its own under the run's directory; nginx's stream module
# (libnginx-mod-stream) carries its L4 mode.
setup_proxies() {
	[ -x /usr/sbin/haproxy ] && [ -x /usr/sbin/nginx ] &&
		[ -e /usr/share/nginx/modules-available/mod-stream.conf ] && return 0
	apt_install_unstarted haproxy nginx libnginx-mod-stream
}

# The live metrics test (cmd/hopbench) starts prometheus itself, with a
# config and storage of its own in a temporary directory.
setup_prometheus() {
	command -v prometheus >/dev/null && return 0
	apt_install_unstarted prometheus
}

# The version is deploy/kafka/pom.xml's kafka.version (and internal/broker's
# KafkaVersion); the jars go to .tools/kafka/VERSION/libs.
setup_kafka() {
	local pom=deploy/kafka/pom.xml version
	version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom")
	ls .tools/kafka/"$version"/libs/kafka_*.jar >/dev/null 2>&1 && return 0
	command -v java >/dev/null || apt_install openjdk-17-jre-headless
	command -v mvn >/dev/null || apt_install maven
	log "fetching the Kafka $version broker jars from Maven Central"
	# Maven's quiet mode still prints colour resets; its output is shown
	# only when the fetch fails.
	local out
	if ! out=$(mvn -q -B -f "$pom" package 2>&1); then
		printf '%s\n' "$out" >&2
		log "fetching the Kafka jars failed (see Maven's output above)"
		return 1
	fi
}

# Quarkus's Maven plugin needs Maven 3.9 (Debian 12's is 3.8): fetched from
# Maven Central and checked against its published SHA-512.
MAVEN_VERSION=3.9.11
MVN=.tools/maven/apache-maven-$MAVEN_VERSION/bin/mvn
setup_maven() {
	[ -x "$MVN" ] && return 0
	command -v curl >/dev/null || apt_install curl ca-certificates
	local url=https://repo.maven.apache.org/maven2/org/apache/maven/apache-maven/$MAVEN_VERSION/apache-maven-$MAVEN_VERSION-bin.tar.gz tmp
	mkdir -p .tools/maven
	tmp=$(mktemp -d .tools/maven/.fetch-XXXXXX)
	log "fetching Maven $MAVEN_VERSION from Maven Central"
	if ! curl -sSfL "$url" -o "$tmp/maven.tgz" || ! curl -sSfL "$url.sha512" -o "$tmp/sum" ||
		! echo "$(cut -d' ' -f1 "$tmp/sum")  $tmp/maven.tgz" | sha512sum -c - >/dev/null; then
		rm -rf "$tmp"
		log "fetching Maven $MAVEN_VERSION failed, or its checksum did not match"
		return 1
	fi
	tar xzf "$tmp/maven.tgz" -C "$tmp" && mv "$tmp/apache-maven-$MAVEN_VERSION" .tools/maven/
	rm -rf "$tmp"
}

# The JVM node is rebuilt when a hash of its sources differs from the one
# kept beside the last build.
setup_jvm() {
	command -v javac >/dev/null || apt_install openjdk-17-jdk-headless
	setup_maven
	local key out
	key=$(find jvm/node/pom.xml jvm/node/src -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
	[ "$(cat .tools/jvm/node/key 2>/dev/null)" = "$key" ] && [ -f .tools/jvm/node/quarkus-app/quarkus-run.jar ] && return 0
	log "building the JVM node (jvm/node) with Maven"
	if ! out=$("$MVN" -q -B -f jvm/node/pom.xml package -DskipTests 2>&1); then
		printf '%s\n' "$out" >&2
		log "building the JVM node failed (see Maven's output above)"
		return 1
	fi
	rm -rf .tools/jvm/node && mkdir -p .tools/jvm/node
	cp -r jvm/node/target/quarkus-app .tools/jvm/node/ && echo "$key" >.tools/jvm/node/key
}

setup_chromium() {
	apt_install chromium fonts-liberation
}

setup_xmllint() {
	apt_install libxml2-utils
}

main() {
	cd "$(dirname "$0")/.."
	need_go
	if [ $# -eq 0 ]; then
		set -- base
	fi
	for component in "$@"; do
		case "$component" in
		base) setup_rabbitmq; setup_redis; setup_mosquitto; setup_proxies; setup_kafka ;;
		protoc) setup_protoc ;;
		rabbitmq) setup_rabbitmq ;;
		redis) setup_redis ;;
		mosquitto) setup_mosquitto ;;
		proxies) setup_proxies ;;
		prometheus) setup_prometheus ;;
		kafka) setup_kafka ;;
		chromium) setup_chromium ;;
		jvm) setup_jvm ;;
		xmllint) setup_xmllint ;;
		*) log "unknown component '$component' (known: base, protoc, rabbitmq, redis, mosquitto, proxies, prometheus, kafka, chromium, jvm, xmllint)"; exit 2 ;;
		esac
	done
}

main "$@"
