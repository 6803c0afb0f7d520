#!/bin/sh
# Installs the load tools bench/ compares hopbench with, idempotently:
# ghz and vegeta (pinned, with go install) into DIR, wrk from Debian.
# None of them is a dependency of hopbench: only bench/ uses them.
#   scripts/peers.sh DIR
set -eu
dir=${1:?usage: scripts/peers.sh DIR}
mkdir -p "$dir"
[ -x "$dir/ghz" ] || GOBIN="$dir" go install github.com/bojand/ghz/cmd/ghz@v0.120.0
[ -x "$dir/vegeta" ] || GOBIN="$dir" go install github.com/tsenart/vegeta/v12@v12.13.0
if ! command -v wrk >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "peers: wrk is missing; install it as root (apt-get install wrk)" >&2
		exit 1
	fi
	apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi
echo "peers: ghz, vegeta in $dir; wrk $(command -v wrk)"
