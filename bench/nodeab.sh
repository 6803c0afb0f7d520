#!/usr/bin/env bash
# The node of another revision against the node of this tree, called by the
# same clients in the same rounds: has a change made the node slower, or is
# it the machine?
#   bench/nodeab.sh REV [CLIENTS] [DURATION] [ROUNDS]   (default 64 10s 3)
# Builds hopbench at REV in a temporary git worktree (REV must build from
# its own tree), starts both nodes on grpc and on rest (JSON over
# HTTP/1.1), and in each round the bare loops (bench/bareloop) and ghz call
# each node in turn, REV's first in odd rounds and this tree's in even
# ones. Prints each client's requests/s on each node (median of the
# rounds, min–max) and this tree's node over REV's in the same round.
# ghz is installed into .tools/bin if missing (scripts/peers.sh). Rerun on
# a quiet machine: the nodes share the CPUs with the clients.
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:?usage: bench/nodeab.sh REV [CLIENTS] [DURATION] [ROUNDS]}"
clients="${2:-64}"
duration="${3:-10s}"
rounds="${4:-3}"
tools="$PWD/.tools/bin"
mkdir -p bin
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	git worktree remove --force "$work/tree" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
git worktree add --detach "$work/tree" "$rev" >/dev/null
(cd "$work/tree" && go build -o "$work/hopbench-rev" ./cmd/hopbench)
go build -o bin/hopbench ./cmd/hopbench
go build -o bin/bareloop ./bench/bareloop
scripts/peers.sh "$tools" >&2
start_node() { # binary stack port
	"$1" node --stack "$2" --listen "127.0.0.1:$3" --admin "" 2>/dev/null &
	pids+=($!)
	for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$3") 2>/dev/null && return; sleep 0.05; done
	echo "node $2 of $1 did not start" >&2
	exit 1
}
start_node "$work/hopbench-rev" grpc 7180
start_node "$work/hopbench-rev" rest 7181
start_node bin/hopbench grpc 7182
start_node bin/hopbench rest 7183
json_rps() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
# Each client calls the node on the port given and prints its requests/s.
bare_grpc() { bin/bareloop -stack grpc -target "127.0.0.1:$1" -clients "$clients" -duration "$duration" | json_rps rps; }
ghz_grpc() { "$tools/ghz" --insecure --call hopbench.v1.Hop/Echo -d "$(bin/bareloop -print-json)" -c "$clients" -z "$duration" --connections 1 -O json "127.0.0.1:$1" | json_rps rps; }
bare_rest() { bin/bareloop -stack rest -target "127.0.0.1:$(($1 + 1))" -clients "$clients" -duration "$duration" | json_rps rps; }
for round in $(seq "$rounds"); do
	sides="rev:7180 here:7182"
	[ $((round % 2)) -eq 0 ] && sides="here:7182 rev:7180"
	for side in $sides; do
		for c in bare_grpc ghz_grpc bare_rest; do
			echo "round $round/$rounds: ${side%%:*} $c" >&2
			printf '%s\t%s\t%s\t%s\n' "$round" "${side%%:*}" "$c" "$($c "${side#*:}")" >>"$work/rps.tsv"
		done
	done
done
python3 - "$work/rps.tsv" "$rev" "$clients" <<'EOF'
import collections, statistics, sys
rps = collections.defaultdict(dict)  # (client, side) -> round -> rps
for line in open(sys.argv[1]):
    rnd, side, client, v = line.split()
    rps[(client, side)][rnd] = float(v)
def spread(vs, f):
    return f"{f(statistics.median(vs))} ({f(min(vs))}–{f(max(vs))})"
names = {"bare_grpc": ("grpc", "bare grpc-go loop"), "ghz_grpc": ("grpc", "ghz v0.120.0"),
         "bare_rest": ("rest (json, HTTP/1.1)", "bare net/http loop")}
print(f"| node | client | clients | node at {sys.argv[2]}, req/s | node here, req/s | here / {sys.argv[2]}, same round |")
print("| --- | --- | --- | --- | --- | --- |")
n = lambda v: f"{v:.0f}"
for client, (node, name) in names.items():
    rev, here = rps[(client, "rev")], rps[(client, "here")]
    ratio = [here[r] / rev[r] for r in rev]
    print(f"| {node} | {name} | {sys.argv[3]} | {spread(list(rev.values()), n)} | {spread(list(here.values()), n)} | {spread(ratio, lambda v: f'{v:.2f}x')} |")
EOF
