#!/usr/bin/env bash
# What a connection per call costs, with and without TLS, at one client:
# rest (or STACK) against one node, closed loop, 1 client for 5 s, pooled
# then per request, ROUNDS times against the same nodes:
#   bench/handshake.sh [STACK] [ROUNDS]      (default rest 3)
# Prints a Markdown table of p50s and per-request ÷ pooled for each round,
# plain and over TLS. A TLS handshake costs far more than a loopback round
# trip, so with TLS the ratio should be well above 2; without it, a TCP
# connect on loopback adds little. Medians of one round are one run's.
set -euo pipefail
cd "$(dirname "$0")/.."
stack="${1:-rest}"
rounds="${2:-3}"
mkdir -p bin
go build -o bin/hopbench ./cmd/hopbench
. bench/lib.sh
tls_dir="$work/tls"
start_node bin/hopbench "$stack" 17071
start_node bin/hopbench "$stack" 17072 --tls-dir "$tls_dir"

p50() { # port [flags]
	local port=$1; shift
	bin/hopbench load --stack "$stack" --target "127.0.0.1:$port" --model text --count 10 --clients 1 \
		--duration 5s --warmup 1s --format json "$@" 2>/dev/null |
		python3 -c "import json,sys; print(json.load(sys.stdin)['p50_us'])"
}
echo "| round | plain pooled µs | plain per request µs | ratio | TLS pooled µs | TLS per request µs | ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for i in $(seq "$rounds"); do
	a=$(p50 17071); b=$(p50 17071 --per-request)
	c=$(p50 17072 --tls-dir "$tls_dir"); d=$(p50 17072 --tls-dir "$tls_dir" --per-request)
	echo "| $i | $a | $b | $(python3 -c "print(f'×{$b/$a:.1f}')") | $c | $d | $(python3 -c "print(f'×{$d/$c:.1f}')") |"
done
