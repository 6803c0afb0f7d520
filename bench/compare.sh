#!/usr/bin/env bash
# Compares hopbench's load generator with ghz and with bare loops of calls,
# against the same node, at the same concurrency, one after another:
#   bench/compare.sh [CLIENTS] [DURATION]      (default 64 10s)
# Prints a Markdown table of requests/s and ratios. Needs only Go; ghz
# v0.120.0 is installed into .tools/bin if missing. Rerun on a quiet
# machine: every tool shares the CPUs with the node it measures.
set -euo pipefail
cd "$(dirname "$0")/.."
clients="${1:-64}"
duration="${2:-10s}"
tools="$PWD/.tools/bin"
mkdir -p "$tools" bin
go build -o bin/hopbench ./cmd/hopbench
go build -o bin/bareloop ./bench/bareloop
if [ ! -x "$tools/ghz" ]; then
	GOBIN="$tools" go install github.com/bojand/ghz/cmd/ghz@v0.120.0
fi

node_pid=""
stop_node() { if [ -n "$node_pid" ]; then kill -INT "$node_pid" 2>/dev/null || true; wait "$node_pid" 2>/dev/null || true; node_pid=""; fi; }
trap stop_node EXIT
start_node() { # stack port
	bin/hopbench node --stack "$1" --listen "127.0.0.1:$2" --admin "" 2>/dev/null &
	node_pid=$!
	for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$2") 2>/dev/null && return; sleep 0.05; done
	echo "node $1 did not start" >&2; exit 1
}

echo "| node | load tool | clients | requests/s | vs hopbench load |"
echo "| --- | --- | --- | --- | --- |"
row() { printf '| %s | %s | %s | %.0f | %s |\n' "$1" "$2" "$clients" "$3" "$4"; }
ratio() { python3 -c "print(f'{$1/$2:.2f}x')"; }

start_node grpc 7170
hb=$(bin/hopbench load --stack grpc --target 127.0.0.1:7170 --op echo --model text --count 10 --clients "$clients" --duration "$duration" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rps"])')
bare=$(bin/bareloop -stack grpc -target 127.0.0.1:7170 -clients "$clients" -duration "$duration" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rps"])')
ghz=$("$tools/ghz" --insecure --call hopbench.v1.Hop/Echo -d "$(bin/bareloop -print-json)" -c "$clients" -z "$duration" --connections 1 -O json 127.0.0.1:7170 | python3 -c 'import json,sys; print(json.load(sys.stdin)["rps"])')
stop_node
row grpc "hopbench load" "$hb" "1.00x"
row grpc "bare grpc-go loop" "$bare" "$(ratio "$bare" "$hb")"
row grpc "ghz v0.120.0" "$ghz" "$(ratio "$ghz" "$hb")"

start_node rest 7171
hb=$(bin/hopbench load --stack rest --target 127.0.0.1:7171 --op echo --model text --count 10 --clients "$clients" --duration "$duration" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rps"])')
bare=$(bin/bareloop -stack rest -target 127.0.0.1:7171 -clients "$clients" -duration "$duration" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rps"])')
stop_node
row "rest (json, HTTP/1.1)" "hopbench load" "$hb" "1.00x"
row "rest (json, HTTP/1.1)" "bare net/http loop" "$bare" "$(ratio "$bare" "$hb")"
