#!/usr/bin/env bash
# Compares hopbench's load generator with its peers and with bare loops of
# calls, against the same nodes at the same concurrency, the tools taking
# turns in each round (their order rotated from round to round):
#   bench/compare.sh [CLIENTS] [DURATION] [ROUNDS]   (default 64 10s 3)
# gRPC node: hopbench load, a bare grpc-go loop, ghz. REST node (JSON over
# HTTP/1.1): hopbench load, a bare net/http loop, vegeta, wrk. Prints a
# Markdown table: each tool's requests/s (median of the rounds, min–max)
# and its ratio to hopbench's in the same round (median, min–max). Then,
# on each node, hopbench load and the bare loop at one client, taking
# turns: their p50s and hopbench's over the bare loop's in the same round
# (what the caller's own cost adds to one call). Needs
# Go; ghz v0.120.0 and vegeta v12.13.0 are installed into .tools/bin if
# missing, wrk from Debian (scripts/peers.sh): none is a dependency of
# hopbench. Rerun on a quiet machine: every tool shares the CPUs with the
# node it measures.
set -euo pipefail
cd "$(dirname "$0")/.."
clients="${1:-64}"
duration="${2:-10s}"
rounds="${3:-3}"
tools="$PWD/.tools/bin"
mkdir -p "$tools" bin
go build -o bin/hopbench ./cmd/hopbench
go build -o bin/bareloop ./bench/bareloop
scripts/peers.sh "$tools" >&2
. bench/lib.sh
start_node bin/hopbench grpc 7170
start_node bin/hopbench rest 7171
bin/bareloop -print-rest >"$work/body.json"
printf 'POST http://127.0.0.1:7171/v1/text/echo\nContent-Type: application/json\n@%s\n' "$work/body.json" >"$work/targets"
cat >"$work/post.lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [[$(cat "$work/body.json")]]
EOF
# hb and bare STACK PORT CLIENTS KEY: hopbench load's or the bare loop's
# figure KEY (rps, p50_us) against the node on PORT.
hb() { bin/hopbench load --stack "$1" --target "127.0.0.1:$2" --op echo --model text --count 10 --clients "$3" --duration "$duration" --format json 2>/dev/null | json_rps "$4"; }
bare() { bin/bareloop -stack "$1" -target "127.0.0.1:$2" -clients "$3" -duration "$duration" | json_rps "$4"; }

# Each tool prints its requests/s.
hopbench_grpc() { hb grpc 7170 "$clients" rps; }
bare_grpc() { bare grpc 7170 "$clients" rps; }
ghz_grpc() { "$tools/ghz" --insecure --call hopbench.v1.Hop/Echo -d "$(bin/bareloop -print-json)" -c "$clients" -z "$duration" --connections 1 -O json 127.0.0.1:7170 | ghz_rps "$clients"; }
hopbench_rest() { hb rest 7171 "$clients" rps; }
bare_rest() { bare rest 7171 "$clients" rps; }
vegeta_rest() { "$tools/vegeta" attack -rate 0 -max-workers "$clients" -workers "$clients" -duration "$duration" -targets "$work/targets" | "$tools/vegeta" report -type json | json_rps throughput; }
# At one client each prints its p50 in µs.
hopbench_grpc1() { hb grpc 7170 1 p50_us; }
bare_grpc1() { bare grpc 7170 1 p50_us; }
hopbench_rest1() { hb rest 7171 1 p50_us; }
bare_rest1() { bare rest 7171 1 p50_us; }
wrk_rest() { wrk -t 2 -c "$clients" -d "$duration" -s "$work/post.lua" http://127.0.0.1:7171/v1/text/echo |
	awk '/Non-2xx|Socket errors/ {print "wrk: " $0 > "/dev/stderr"; bad = 1} /^Requests\/sec:/ {rps = $2} END {if (bad) exit 1; print rps}'; }

# Rounds: on each node, every tool once, in an order rotated by the round.
declare -A tools_of=([grpc]="hopbench_grpc bare_grpc ghz_grpc" [rest]="hopbench_rest bare_rest vegeta_rest wrk_rest"
	[grpc1]="hopbench_grpc1 bare_grpc1" [rest1]="hopbench_rest1 bare_rest1")
for round in $(seq "$rounds"); do
	for node in grpc rest grpc1 rest1; do
		read -r -a ts <<<"${tools_of[$node]}"
		n=${#ts[@]}
		for i in $(seq 0 $((n - 1))); do
			t=${ts[$(((i + round) % n))]}
			echo "round $round/$rounds: $t" >&2
			v=$($t) || { echo "$t failed in round $round: no figure from it" >&2; exit 1; }
			printf '%s\t%s\t%s\t%s\n' "$round" "$node" "$t" "$v" >>"$work/rps.tsv"
		done
	done
done

python3 - "$work/rps.tsv" "$clients" <<'EOF'
import collections, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
rps = collections.defaultdict(dict)  # (node, tool) -> round -> rps
for rnd, node, tool, v in rows:
    rps[(node, tool)][rnd] = float(v)
names = {"hopbench_grpc": "hopbench load", "bare_grpc": "bare grpc-go loop", "ghz_grpc": "ghz v0.120.0",
         "hopbench_rest": "hopbench load", "bare_rest": "bare net/http loop", "vegeta_rest": "vegeta v12.13.0",
         "wrk_rest": "wrk 4.1.0"}
nodes = {"grpc": "grpc", "rest": "rest (json, HTTP/1.1)"}
def spread(vs, fmt):
    return f"{fmt(statistics.median(vs))} ({fmt(min(vs))}–{fmt(max(vs))})"
print(f"| node | load tool | clients | requests/s, median (min–max) | vs hopbench load, same round |")
print("| --- | --- | --- | --- | --- |")
order = list(names)
rates = [kv for kv in rps.items() if kv[0][0] in nodes]
for (node, tool), by in sorted(rates, key=lambda kv: (kv[0][0], order.index(kv[0][1]))):
    base = rps[(node, "hopbench_" + node)]
    ratios = [by[r] / base[r] for r in by if base.get(r)]
    print(f"| {nodes[node]} | {names[tool]} | {sys.argv[2]} | {spread(list(by.values()), lambda v: f'{v:.0f}')} | {spread(ratios, lambda v: f'{v:.2f}x')} |")
print("\n| node | clients | hopbench load p50 µs, median (min–max) | bare loop p50 µs, median (min–max) | hopbench / bare loop, same round |")
print("| --- | --- | --- | --- | --- |")
for node in nodes:
    hb, bare = rps[(node + "1", f"hopbench_{node}1")], rps[(node + "1", f"bare_{node}1")]
    ratios = [hb[r] / bare[r] for r in hb if bare.get(r)]
    us = lambda v: f"{v:.0f}"
    print(f"| {nodes[node]} | 1 | {spread(list(hb.values()), us)} | {spread(list(bare.values()), us)} | {spread(ratios, lambda v: f'{v:.2f}x')} |")
print(f"\n{len(set(r for r, *_ in rows))} round(s); the tools took turns on the same nodes, their order rotated each round.")
EOF
