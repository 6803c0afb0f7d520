#!/usr/bin/env bash
# Another revision's node and load generator against this tree's, in the
# same rounds: has a change made either slower, or is it the machine?
#   bench/revab.sh REV [CLIENTS] [DURATION] [ROUNDS]   (default 64 10s 3)
# Builds hopbench at REV in a temporary git worktree (REV must build from
# its own tree) and starts both nodes on grpc and on rest (JSON over
# HTTP/1.1). In each round, REV's first in odd rounds and this tree's in
# even ones: the bare loops (bench/bareloop) and ghz call each node in
# turn (the nodes compared), and REV's hopbench load and this tree's call
# this tree's node in turn (the generators compared), and each side's
# hopbench load calls its own gRPC node. Prints each side's requests/s
# (median of the rounds, min–max) and this tree's over REV's in the same
# round, and each tree's hopbench over ghz on its own node: has the
# ratio to ghz moved since REV, in the same rounds? ghz is installed into .tools/bin if missing
# (scripts/peers.sh). Rerun on a quiet machine: the nodes share the CPUs
# with the clients.
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:?usage: bench/revab.sh REV [CLIENTS] [DURATION] [ROUNDS]}"
clients="${2:-64}"
duration="${3:-10s}"
rounds="${4:-3}"
tools="$PWD/.tools/bin"
mkdir -p bin
. bench/lib.sh
trap 'git worktree remove --force "$work/tree" 2>/dev/null || true; stop_all' EXIT
git worktree add --detach "$work/tree" "$rev" >/dev/null
(cd "$work/tree" && go build -o "$work/hopbench-rev" ./cmd/hopbench)
go build -o bin/hopbench ./cmd/hopbench
go build -o bin/bareloop ./bench/bareloop
scripts/peers.sh "$tools" >&2
start_node "$work/hopbench-rev" grpc 7180
start_node "$work/hopbench-rev" rest 7181
start_node bin/hopbench grpc 7182
start_node bin/hopbench rest 7183
# A side whose calls failed gives no figure (json_rps, ghz_rps and
# load_json fail): the script stops.
# Each client calls the node on the port given and prints its requests/s.
bare_grpc() { bin/bareloop -stack grpc -target "127.0.0.1:$1" -clients "$clients" -duration "$duration" | json_rps rps; }
ghz_grpc() { "$tools/ghz" --insecure --call hopbench.v1.Hop/Echo -d "$(bin/bareloop -print-json)" -c "$clients" -z "$duration" --connections 1 -O json "127.0.0.1:$1" | ghz_rps "$clients"; }
bare_rest() { bin/bareloop -stack rest -target "127.0.0.1:$(($1 + 1))" -clients "$clients" -duration "$duration" | json_rps rps; }
# A generator (REV's or this tree's binary) calls a node and prints its
# requests/s and its own CPU time a request (µs): gen BINARY STACK PORT.
load_json() { python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit("calls failed") if d.get("errors") else print(d["rps"], d["client_cpu_us_per_req"], sep="\t")'; }
gen() { "$1" load --stack "$2" --target "127.0.0.1:$3" --op echo --model text --count 10 --clients "$clients" --duration "$duration" --format json 2>/dev/null | load_json; }
# On this tree's nodes (7182, 7183); own_grpc on the side's own gRPC node,
# which for this tree is load_grpc's, so it runs for REV's side only.
load_grpc() { gen "$1" grpc 7182; }
load_rest() { gen "$1" rest 7183; }
own_grpc() { gen "$1" grpc "$2"; }
for round in $(seq "$rounds"); do
	sides="rev:7180:$work/hopbench-rev here:7182:bin/hopbench"
	[ $((round % 2)) -eq 0 ] && sides="here:7182:bin/hopbench rev:7180:$work/hopbench-rev"
	for side in $sides; do
		IFS=: read -r name port binary <<<"$side"
		for c in bare_grpc ghz_grpc bare_rest; do
			echo "round $round/$rounds: $name's node, $c" >&2
			v=$($c "$port") # an assignment, so that a failing side stops the script
			printf '%s\t%s\t%s\t%s\n' "$round" "$name" "$c" "$v" >>"$work/rps.tsv"
		done
		gens="load_grpc load_rest"
		[ "$name" = rev ] && gens+=" own_grpc"
		for c in $gens; do
			echo "round $round/$rounds: $name's $c" >&2
			v=$($c "$binary" "$port")
			printf '%s\t%s\t%s\t%s\n' "$round" "$name" "$c" "$v" >>"$work/rps.tsv"
		done
	done
done
python3 - "$work/rps.tsv" "$rev" "$clients" <<'EOF'
import collections, statistics, sys
rps = collections.defaultdict(dict)  # (client, side) -> round -> rps
cpu = collections.defaultdict(dict)  # (generator, side) -> round -> its CPU µs a request
for line in open(sys.argv[1]):
    rnd, side, client, v, *us = line.split()
    rps[(client, side)][rnd] = float(v)
    if us:
        cpu[(client, side)][rnd] = float(us[0])
def spread(vs, f):
    return f"{f(statistics.median(vs))} ({f(min(vs))}–{f(max(vs))})"
n = lambda v: f"{v:.0f}"
def table(what, names, of=rps, unit="req/s"):
    print(f"| node | {what[0]} | clients | {what[1]} at {sys.argv[2]}, {unit} | {what[1]} here, {unit} | here / {sys.argv[2]}, same round |")
    print("| --- | --- | --- | --- | --- | --- |")
    f = n if unit == "req/s" else lambda v: f"{v:.1f}"
    for client, (node, name) in names.items():
        rev, here = of[(client, "rev")], of[(client, "here")]
        ratio = [here[r] / rev[r] for r in rev]
        print(f"| {node} | {name} | {sys.argv[3]} | {spread(list(rev.values()), f)} | {spread(list(here.values()), f)} | {spread(ratio, lambda v: f'{v:.2f}x')} |")
table(("client", "node"), {"bare_grpc": ("grpc", "bare grpc-go loop"), "ghz_grpc": ("grpc", "ghz v0.120.0"),
                           "bare_rest": ("rest (json, HTTP/1.1)", "bare net/http loop")})
print()
generators = {"load_grpc": ("grpc, this tree's", "hopbench load"), "load_rest": ("rest (json, HTTP/1.1), this tree's", "hopbench load")}
table(("generator", "hopbench load"), generators)
print()
table(("generator", "hopbench load"), generators, of=cpu, unit="its CPU µs a request")
print()
print(f"| node | tree | clients | hopbench load on its own node, req/s | ghz on that node, req/s | hopbench / ghz, same round |")
print("| --- | --- | --- | --- | --- | --- |")
for side, tree in (("rev", sys.argv[2]), ("here", "here")):
    own, ghz = rps[("own_grpc" if side == "rev" else "load_grpc", side)], rps[("ghz_grpc", side)]
    ratio = [own[r] / ghz[r] for r in own]
    print(f"| grpc | {tree} | {sys.argv[3]} | {spread(list(own.values()), n)} | {spread(list(ghz.values()), n)} | {spread(ratio, lambda v: f'{v:.2f}x')} |")
EOF
