#!/usr/bin/env bash
# What hopbench's node adds to one client's latency on today's stacks
# (issue 41): hopbench load at 1 client against hopbench's node, then
# against the bare responder of the same library (bench/bareloop -serve:
# connect-go's handler on the generated Payload, grpc-go's generated Hop
# server, a coder/websocket loop, quic-go's http3 with net/http's mux),
# the two taking turns over rounds, echoing text×10:
#   bench/latency1.sh [DURATION] [ROUNDS] [STACKS...]
#   (default 5s 3 connect connect+json grpcweb connect-grpc grpc-stream ws rest-h3)
# Prints a Markdown table: each side's p50 (median over rounds, min–max)
# and the node's over the bare responder's in the same round.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-5s}"
rounds="${2:-3}"
shift $(($# > 2 ? 2 : $#))
stacks=("$@")
[ ${#stacks[@]} -gt 0 ] || stacks=(connect connect+json grpcweb connect-grpc grpc-stream ws rest-h3)
mkdir -p bin
go build -o bin/hopbench ./cmd/hopbench
go build -o bin/bareloop ./bench/bareloop
work=$(mktemp -d)
addr=127.0.0.1:7181
admin=127.0.0.1:7182
pid=""
stop() { if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; fi; }
trap 'stop; rm -rf "$work"' EXIT
json_p50() { python3 -c 'import json,sys; r=json.load(sys.stdin); assert r["errors"]==0, r; print(r["p50_us"])'; }
ready() { # waits until the side answers a call
	for _ in $(seq 100); do
		if bin/hopbench load --stack "$1" --target "$addr" --model text --count 10 --requests 1 --clients 1 ${ca:+--ca "$ca"} >/dev/null 2>&1; then return 0; fi
		sleep 0.1
	done
	echo "the $2 of $1 did not answer" >&2
	return 1
}
measure() { # stack side
	bin/hopbench load --stack "$1" --target "$addr" --model text --count 10 --clients 1 --duration "$duration" --format json ${ca:+--ca "$ca"} | json_p50
}
for st in "${stacks[@]}"; do
	ca=""
	for round in $(seq "$rounds"); do
		for side in node bare; do
			if [ "$st" = rest-h3 ]; then ca="$work/ca.pem"; fi
			if [ "$side" = node ]; then
				bin/hopbench node --stack "$st" --listen "$addr" --admin "$admin" ${ca:+--tls --ca-out "$ca"} >"$work/log" 2>&1 &
			else
				bin/bareloop -stack "$st" -target "$addr" -serve ${ca:+-ca-out "$ca"} >"$work/log" 2>&1 &
			fi
			pid=$!
			ready "$st" "$side"
			printf '%s\t%s\t%s\t%s\n' "$st" "$round" "$side" "$(measure "$st" "$side")" >>"$work/p50.tsv"
			stop
		done
	done
done
python3 - "$work/p50.tsv" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
by = {}
for st, rnd, side, p50 in rows:
    by.setdefault(st, {}).setdefault(rnd, {})[side] = float(p50)
print("| stack | node p50 µs | bare p50 µs | node / bare, same round |")
print("|---|---|---|---|")
for st, rounds in by.items():
    def cell(vals): return f"{statistics.median(vals):.0f} ({min(vals):.0f}–{max(vals):.0f})"
    node = [r["node"] for r in rounds.values()]
    bare = [r["bare"] for r in rounds.values()]
    ratio = [r["node"] / r["bare"] for r in rounds.values()]
    print(f"| {st} | {cell(node)} | {cell(bare)} | ×{statistics.median(ratio):.2f} (×{min(ratio):.2f}–{max(ratio):.2f}) |")
PY
