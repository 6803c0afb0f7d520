#!/usr/bin/env bash
# Open-loop latency on an idle REST node: hopbench load at a fixed rate
# (its corrected p50, its uncorrected p50 from the actual send, and its
# own lateness) against vegeta at the same rate on the same node, the two
# alternating over rounds:
#   bench/openloop.sh [ROUNDS] [DURATION] [RATES...]   (default 3 10s 2000 5000)
# Prints a Markdown table, one row a round and rate. vegeta v12.13.0 is
# installed into .tools/bin if missing (never a dependency of hopbench).
# HOPBENCH=path measures another hopbench binary on the same node.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
duration="${2:-10s}"
shift $(( $# > 2 ? 2 : $# ))
rates=("${@:-2000 5000}")
read -r -a rates <<<"${rates[*]}"
tools="$PWD/.tools/bin"
mkdir -p "$tools" bin
go build -o bin/hopbench ./cmd/hopbench
go build -o bin/bareloop ./bench/bareloop
hb="${HOPBENCH:-bin/hopbench}"
scripts/peers.sh "$tools" >&2
. bench/lib.sh
port=7173
start_node bin/hopbench rest "$port"
bin/bareloop -print-rest >"$work/body.json"
printf 'POST http://127.0.0.1:%s/v1/text/echo\nContent-Type: application/json\n@%s\n' "$port" "$work/body.json" >"$work/targets"

echo "| round | rate | hopbench p50 | uncorrected p50 | lateness p99 | vegeta p50 | hopbench / vegeta |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for round in $(seq "$rounds"); do
	for rate in "${rates[@]}"; do
		"$hb" load --stack rest --target "127.0.0.1:$port" --op echo --model text --count 10 \
			--rate "$rate" --warmup 1s --duration "$duration" --format json >"$work/hb.json"
		"$tools/vegeta" attack -rate "$rate" -duration "$duration" -targets "$work/targets" |
			"$tools/vegeta" report -type json >"$work/vegeta.json"
		python3 - "$round" "$rate" "$work/hb.json" "$work/vegeta.json" <<'EOF'
import json, sys
rnd, rate, hbf, vf = sys.argv[1:]
hb, v = json.load(open(hbf)), json.load(open(vf))
vp50 = v["latencies"]["50th"] / 1000
late = hb.get("lateness", {}).get("p99_us", "–")
unc = hb.get("uncorrected", {}).get("p50_us", 0)
print(f"| {rnd} | {rate} | {hb['p50_us']} µs | {unc} µs | {late} µs | {vp50:.0f} µs | {hb['p50_us'] / vp50:.2f} |")
EOF
	done
done
