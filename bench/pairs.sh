#!/usr/bin/env bash
# hopbench's node and load generator against the bare pair of the same
# library (bench/bareloop: its -serve responder and its caller), at the
# same concurrency, the two taking turns over rounds:
#   bench/pairs.sh [CLIENTS] [DURATION] [ROUNDS] [STACKS...]   (default 64 10s 3 rest grpc nats)
# Prints a Markdown table: each side's requests/s (median, min–max) and
# hopbench's over the bare pair's in the same round (median, min–max).
# NATS runs on the broker `hopbench brokers up nats` starts (stopped after).
set -euo pipefail
cd "$(dirname "$0")/.."
clients="${1:-64}"
duration="${2:-10s}"
rounds="${3:-3}"
shift $(($# > 3 ? 3 : $#))
stacks=("$@")
[ ${#stacks[@]} -gt 0 ] || stacks=(rest grpc nats)
mkdir -p bin
go build -o bin/hopbench ./cmd/hopbench
go build -o bin/bareloop ./bench/bareloop
work=$(mktemp -d)
pid=""
brokers=""
stop() { if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; fi; }
cleanup() {
	stop
	[ -z "$brokers" ] || bin/hopbench brokers down nats >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
target_of() { # stack
	case "$1" in
	nats) echo "nats://127.0.0.1:4222/hopbench-pairs" ;;
	*) echo "127.0.0.1:7190" ;;
	esac
}
wait_ready() { # stack
	[ "$1" = nats ] && { sleep 0.5; return; }
	for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/7190) 2>/dev/null && return; sleep 0.05; done
	echo "responder for $1 did not start" >&2
	exit 1
}
json_rps() { python3 -c 'import json,sys; print(json.load(sys.stdin)["rps"])'; }
hopbench_side() { # stack target
	bin/hopbench node --stack "$1" --listen "$2" --admin "" 2>/dev/null &
	pid=$!
	wait_ready "$1"
	bin/hopbench load --stack "$1" --target "$2" --op echo --model text --count 10 --clients "$clients" --duration "$duration" --format json 2>/dev/null | json_rps
	stop
}
bare_side() { # stack target
	bin/bareloop -stack "$1" -target "$2" -serve 2>/dev/null &
	pid=$!
	wait_ready "$1"
	bin/bareloop -stack "$1" -target "$2" -clients "$clients" -duration "$duration" | json_rps
	stop
}
for s in "${stacks[@]}"; do
	if [ "$s" = nats ] && [ -z "$brokers" ]; then
		bin/hopbench brokers up nats >&2
		brokers=nats
	fi
done
for round in $(seq "$rounds"); do
	for s in "${stacks[@]}"; do
		t=$(target_of "$s")
		sides=(hopbench_side bare_side)
		[ $((round % 2)) -eq 0 ] && sides=(bare_side hopbench_side)
		for side in "${sides[@]}"; do
			echo "round $round/$rounds: $s $side" >&2
			printf '%s\t%s\t%s\t%s\n' "$round" "$s" "$side" "$($side "$s" "$t")" >>"$work/rps.tsv"
		done
	done
done
python3 - "$work/rps.tsv" "$clients" <<'EOF'
import collections, statistics, sys
rps = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    rnd, stack, side, v = line.split()
    rps[stack][(side, rnd)] = float(v)
def spread(vs, f):
    return f"{f(statistics.median(vs))} ({f(min(vs))}–{f(max(vs))})"
print("| stack | clients | hopbench node + load, req/s | bare pair, req/s | hopbench / bare, same round |")
print("| --- | --- | --- | --- | --- |")
for stack, by in rps.items():
    rounds = sorted({r for _, r in by})
    hb = [by[("hopbench_side", r)] for r in rounds]
    bare = [by[("bare_side", r)] for r in rounds]
    ratio = [h / b for h, b in zip(hb, bare)]
    n = lambda v: f"{v:.0f}"
    print(f"| {stack} | {sys.argv[2]} | {spread(hb, n)} | {spread(bare, n)} | {spread(ratio, lambda v: f'{v:.2f}x')} |")
EOF
