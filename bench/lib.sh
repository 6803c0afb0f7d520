# Sourced by the bench scripts, from the repository's root
# (. bench/lib.sh): a work directory and the nodes a script starts, all
# gone when it exits. A script with more to undo sets its own EXIT trap
# and calls stop_all from it.
pids=()
work=$(mktemp -d)
stop_all() {
	for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap stop_all EXIT

# start_node BINARY STACK PORT [FLAGS...] starts a hopbench node on
# 127.0.0.1:PORT and waits until it serves. A port something already
# serves on is refused: the figures would be that server's.
start_node() {
	local bin=$1 stack=$2 port=$3
	shift 3
	if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		echo "port $port is taken: stop what serves on it first" >&2
		exit 1
	fi
	"$bin" node --stack "$stack" --listen "127.0.0.1:$port" --admin "" "$@" 2>/dev/null &
	pids+=($!)
	for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return; sleep 0.05; done
	echo "node $stack of $bin did not start on $port" >&2
	exit 1
}

# json_rps KEY prints KEY of the JSON on its input (hopbench load's,
# bareloop's or vegeta's), and fails, saying so, when its calls failed.
json_rps() { python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(f"calls failed: {r}") if r.get("errors") else print(r[sys.argv[1]])' "$1"; }

# ghz counts failed calls in its rps and names them by status only: its
# rate is of the calls answered OK, and a failure stops the script but for
# the calls in flight that its end of -z cuts off (at most one a client):
#   ghz ... -O json | ghz_rps CLIENTS
ghz_rps() {
	python3 -c '
import json, sys
r, clients = json.load(sys.stdin), int(sys.argv[1])
codes = r.get("statusCodeDistribution", {})
cut = sum(v for k, v in codes.items() if k in ("Canceled", "Unavailable"))
if any(k not in ("OK", "Canceled", "Unavailable") for k in codes) or cut > clients:
    sys.exit(f"ghz: calls failed: {codes}")
print(r["rps"] * codes.get("OK", 0) / r["count"])' "$1"
}
