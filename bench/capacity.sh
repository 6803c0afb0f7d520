#!/usr/bin/env bash
# Capacity at an SLA against the closed-loop peak, on one node: 32 clients
# for 5 s, then a capacity search at p99 ≤ SLA, ROUNDS times, one after
# another against the same node:
#   bench/capacity.sh [STACK] [SLA] [ROUNDS]      (default rest 5ms 3)
# Prints a Markdown table with capacity ÷ peak for each round. The closed
# loop pushes the node into saturation, where its p99 is past most SLAs;
# the capacity is the highest open-loop rate whose p99 is not. Rerun on a
# quiet machine: the generator shares the CPUs with the node.
set -euo pipefail
cd "$(dirname "$0")/.."
stack="${1:-rest}"
sla="${2:-5ms}"
rounds="${3:-3}"
mkdir -p bin
go build -o bin/hopbench ./cmd/hopbench

. bench/lib.sh
port=17070
start_node bin/hopbench "$stack" "$port"

field() { # json key
	python3 -c "import json,sys; print(round(json.load(sys.stdin).get('$1') or 0))"
}
load() { bin/hopbench load --stack "$stack" --target "127.0.0.1:$port" --model text --count 100 --format json "$@" 2>/dev/null; }
echo "| round | closed:32 req/s | capacity req/s at p99 ≤ $sla | capacity ÷ peak |"
echo "| --- | --- | --- | --- |"
for i in $(seq "$rounds"); do
	peak=$(load --clients 32 --duration 5s --warmup 1s | field rps)
	cap=$(load --capacity --sla "$sla" | field capacity_rps)
	echo "| $i | $peak | $cap | $(python3 -c "print(f'{$cap/$peak:.0%}')") |"
done
