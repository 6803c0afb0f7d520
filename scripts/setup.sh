#!/usr/bin/env bash
# Installs what hopbench's make targets need and is missing. Idempotent: a
# component already present is left alone, so running it twice is cheap.
#
#   scripts/setup.sh            everything `make run` and `make test` need
#   scripts/setup.sh protoc     protoc, for `make generate`
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
	command -v protoc >/dev/null || apt_install protobuf-compiler
}

main() {
	need_go
	if [ $# -eq 0 ]; then
		set -- base
	fi
	for component in "$@"; do
		case "$component" in
		base) ;;
		protoc) setup_protoc ;;
		*) log "unknown component '$component' (known: base, protoc)"; exit 2 ;;
		esac
	done
}

main "$@"
