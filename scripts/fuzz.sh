#!/usr/bin/env bash
# Runs every fuzz target in the module for a while each (default 10s).
# `go test` alone runs only their seed corpora; this explores further.
#   scripts/fuzz.sh [DURATION]
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-10s}"
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
		echo "fuzz: $pkg $target for $fuzztime"
		go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s
	done
done
