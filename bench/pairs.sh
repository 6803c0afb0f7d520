#!/usr/bin/env bash
# hopbench's node and load generator against the bare pair of the same
# library (bench/bareloop: its -serve responder and its caller), at the
# same concurrency, the two taking turns over rounds:
#   bench/pairs.sh [CLIENTS] [DURATION] [ROUNDS] [STACKS...]   (default 64 10s 3 rest grpc nats amqp kafka)
# Prints a Markdown table: each side's requests/s (median, min–max) and
# hopbench's over the bare pair's in the same round (median, min–max).
# The broker stacks run on the brokers `hopbench brokers up` starts (NATS,
# RabbitMQ, Kafka; stopped after). Each side of each round has a subject,
# queue or topic of its own, so that no round inherits another's Kafka
# consumer group, offsets or leftover requests.
# PROFILE=DIR also writes the CPU profiles of hopbench's node and load
# (HOPBENCH_CPUPROFILE) to DIR/STACK-node.pprof and DIR/STACK-load.pprof,
# the last round's: go tool pprof -top bin/hopbench DIR/nats-node.pprof.
# MIX=1 (broker stacks) also runs the mixed pairs, hopbench's node with the
# bare caller and the bare responder with hopbench's load (both bareloops
# then carry hopbench's headers), and prints each side's rate over the bare
# pair's: which half of the pair the gap is in.
# BARE_FLAGS are passed to both bareloops (BARE_FLAGS=-headers: a broker
# pair, nats, amqp or kafka, carries hopbench's metadata headers).
# NODE_FLAGS are passed to hopbench's node (NODE_FLAGS='--option
# serve=serial': a broker stack's node serves as the bare responder does,
# one message at a time in the delivering goroutine).
# NODE_FLAGS_B adds a side to every round: hopbench's node with these flags
# instead, and its rate over the bare pair's in the same round, so two
# settings of the node are compared in the same rounds
# (NODE_FLAGS_B='--option serve=serial').
set -euo pipefail
cd "$(dirname "$0")/.."
clients="${1:-64}"
duration="${2:-10s}"
rounds="${3:-3}"
shift $(($# > 3 ? 3 : $#))
stacks=("$@")
[ ${#stacks[@]} -gt 0 ] || stacks=(rest grpc nats amqp kafka)
mkdir -p bin ${PROFILE:+"$PROFILE"}
go build -o bin/hopbench ./cmd/hopbench
go build -o bin/bareloop ./bench/bareloop
work=$(mktemp -d)
admin=127.0.0.1:7191 # the node's admin endpoint: its /ready says it serves
pid=""
brokers=()
stop() { if [ -n "$pid" ]; then kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; fi; }
cleanup() {
	local rc=$?
	stop
	if [ "$rc" -ne 0 ] && [ -s "$work/log" ]; then
		echo "the last side said:" >&2
		tail -20 "$work/log" >&2
	fi
	[ ${#brokers[@]} -eq 0 ] || bin/hopbench brokers down "${brokers[@]}" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
broker_of() { # stack
	case "$1" in
	nats) echo nats ;;
	amqp) echo rabbitmq ;;
	kafka) echo kafka ;;
	esac
}
target_of() { # stack side round
	local name="hopbench-pairs-${2%_side}-$3-$$"
	case "$1" in
	nats) echo "nats://127.0.0.1:4222/$name" ;;
	amqp) echo "amqp://127.0.0.1:5672/$name" ;;
	kafka) echo "kafka://127.0.0.1:9092/$name" ;;
	*) echo "127.0.0.1:7190" ;;
	esac
}
wait_until() { # what seconds command...: polls command while the side's process lives
	local what=$1 tries=$(($2 * 10))
	shift 2
	for _ in $(seq "$tries"); do
		"$@" && return
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "$what did not become ready" >&2
	exit 1
}
json_rps() { python3 -c 'import json,sys; print(json.load(sys.stdin)["rps"])'; }
profile() { # stack role: the profile file for HOPBENCH_CPUPROFILE, if PROFILE is set
	[ -z "${PROFILE:-}" ] || echo "$PROFILE/$1-$2.pprof"
}
hopbench_side() { # stack target
	HOPBENCH_CPUPROFILE=$(profile "$1" node) bin/hopbench node --stack "$1" --listen "$2" --admin "$admin" ${NODE_FLAGS:-} >/dev/null 2>"$work/log" &
	pid=$!
	wait_until "hopbench node --stack $1" 60 curl -sf -o /dev/null "http://$admin/ready"
	HOPBENCH_CPUPROFILE=$(profile "$1" load) bin/hopbench load --stack "$1" --target "$2" --op echo --model text --count 10 --clients "$clients" --duration "$duration" --format json 2>>"$work/log" | json_rps
	stop
}
hopbench_b_side() { # stack target: hopbench_side with NODE_FLAGS_B
	NODE_FLAGS="$NODE_FLAGS_B" hopbench_side "$@"
}
bare_side() { # stack target
	bin/bareloop -stack "$1" -target "$2" ${BARE_FLAGS:-} -serve >"$work/ready" 2>"$work/log" &
	pid=$!
	wait_until "bareloop -stack $1 -serve" 60 grep -q "serving on" "$work/ready"
	bin/bareloop -stack "$1" -target "$2" ${BARE_FLAGS:-} -clients "$clients" -duration "$duration" 2>>"$work/log" | json_rps
	stop
}
node_side() { # stack target: hopbench's node, the bare caller
	bin/hopbench node --stack "$1" --listen "$2" --admin "$admin" ${NODE_FLAGS:-} >/dev/null 2>"$work/log" &
	pid=$!
	wait_until "hopbench node --stack $1" 60 curl -sf -o /dev/null "http://$admin/ready"
	bin/bareloop -stack "$1" -target "$2" -headers -clients "$clients" -duration "$duration" 2>>"$work/log" | json_rps
	stop
}
load_side() { # stack target: the bare responder, hopbench's load
	bin/bareloop -stack "$1" -target "$2" -headers -serve >"$work/ready" 2>"$work/log" &
	pid=$!
	wait_until "bareloop -stack $1 -serve" 60 grep -q "serving on" "$work/ready"
	bin/hopbench load --stack "$1" --target "$2" --op echo --model text --count 10 --clients "$clients" --duration "$duration" --format json 2>>"$work/log" | json_rps
	stop
}
for s in "${stacks[@]}"; do
	b=$(broker_of "$s")
	if [ -n "$b" ] && [[ " ${brokers[*]} " != *" $b "* ]]; then
		brokers+=("$b")
	fi
done
[ ${#brokers[@]} -eq 0 ] || bin/hopbench brokers up "${brokers[@]}" >&2
for round in $(seq "$rounds"); do
	for s in "${stacks[@]}"; do
		sides=(hopbench_side bare_side)
		[ -n "${MIX:-}" ] && [ -n "$(broker_of "$s")" ] && sides+=(node_side load_side)
		[ -n "${NODE_FLAGS_B:-}" ] && sides+=(hopbench_b_side)
		[ $((round % 2)) -eq 0 ] && sides=($(printf '%s\n' "${sides[@]}" | tac))
		for side in "${sides[@]}"; do
			echo "round $round/$rounds: $s $side" >&2
			# In this shell, not in $(...): a side that fails ends the
			# script, and the trap stops the process it started.
			"$side" "$s" "$(target_of "$s" "$side" "$round")" >"$work/rps"
			printf '%s\t%s\t%s\t%s\n' "$round" "$s" "$side" "$(cat "$work/rps")" >>"$work/rps.tsv"
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
mixed = {"node_side": "hopbench node + bare caller", "load_side": "bare responder + hopbench load",
         "hopbench_b_side": "hopbench node (NODE_FLAGS_B) + load"}
if any(side in mixed for by in rps.values() for side, _ in by):
    print()
    print("| stack | pair | req/s | over the bare pair, same round |")
    print("| --- | --- | --- | --- |")
    for stack, by in rps.items():
        for side, name in mixed.items():
            rounds = sorted({r for s, r in by if s == side})
            if rounds:
                v = [by[(side, r)] for r in rounds]
                ratio = [by[(side, r)] / by[("bare_side", r)] for r in rounds]
                print(f"| {stack} | {name} | {spread(v, lambda x: f'{x:.0f}')} | {spread(ratio, lambda x: f'{x:.2f}x')} |")
EOF
