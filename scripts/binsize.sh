#!/bin/sh
# What each stack's libraries cost a service's binary: builds hopbench once
# with no stack and once with each stack alone (build tags, see
# internal/transport/all) and writes their sizes as JSON. The five-technology
# study compared application sizes; `make experiments` writes this beside its
# results, where the report's paper-vs-here table reads it.
#   scripts/binsize.sh experiments/five-tech/binaries.json
set -eu
out=${1:?usage: scripts/binsize.sh OUT.json}
go=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
size() {
	$go build -trimpath -tags "$1" -o "$tmp/hopbench" ./cmd/hopbench
	stat -c %s "$tmp/hopbench"
}
{
	printf '{"go": "%s", "flags": "-trimpath", "binaries": [\n' "$($go env GOVERSION)"
	printf '  {"stack": "none", "bytes": %s}' "$(size hopbench_only)"
	for t in rest grpc graphql amqp kafka nats; do
		printf ',\n  {"stack": "%s", "bytes": %s}' "$t" "$(size "hopbench_only,hopbench_$t")"
	done
	printf '\n]}\n'
} >"$tmp/out.json"
mv "$tmp/out.json" "$out"
echo "binary sizes written to $out"
