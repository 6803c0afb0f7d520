#!/usr/bin/env bash
# The load generator's memory at a fixed rate against an idle REST node:
# its resident set each second, its peak (VmHWM), and its resident set
# after the first minute (after the first tenth of a shorter run) and at
# the end, for each GOGC given ("" is hopbench's own choice; the GOGC
# column is the target the load's record says it ran at):
#   bench/memory.sh [DURATION] [RATE] [WORKERS] [GOGC...]   (default 60s 3000 256 "")
# Prints a Markdown table, one row a GOGC.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-60s}"
rate="${2:-3000}"
workers="${3:-256}"
shift $(( $# > 3 ? 3 : $# ))
settings=("$@")
[ ${#settings[@]} -gt 0 ] || settings=("")
mkdir -p bin
go build -o bin/hopbench ./cmd/hopbench
. bench/lib.sh
port=7174
start_node bin/hopbench rest "$port"

echo "| GOGC | rate | workers | duration | peak (VmHWM) | RSS, first minute | RSS, last minute | last / first | errors |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for gogc in "${settings[@]}"; do
	env -u GOGC ${gogc:+GOGC=$gogc} bin/hopbench load --stack rest --target "127.0.0.1:$port" --op echo --model text --count 10 \
		--rate "$rate" --workers "$workers" --duration "$duration" --out "$work/rec" >/dev/null &
	load=$!
	pids+=("$load")
	: >"$work/rss"
	while kill -0 "$load" 2>/dev/null; do
		awk '/^VmRSS|^VmHWM/ {printf "%s ", $2} END {print ""}' "/proc/$load/status" >>"$work/rss" 2>/dev/null || true
		sleep 1
	done
	wait "$load" || { echo "the load at GOGC ${gogc:-unset} failed" >&2; exit 1; }
	python3 - "$gogc" "$rate" "$workers" "$duration" "$work/rss" "$work/rec/results.jsonl" <<'PY'
import json, sys
gogc, rate, workers, duration, rssf, recf = sys.argv[1:]
rec = json.loads(open(recf).read().splitlines()[-1])
target = rec["environment"].get("gc_percent", "not recorded")
gogc = ("off" if target == -1 else f"{target}") + ("" if gogc else " (hopbench's own)")
rows = [list(map(int, l.split())) for l in open(rssf) if len(l.split()) == 2]
rss = [r[0] for r in rows]
peak = max(r[1] for r in rows)
minute = 60 if len(rss) >= 120 else max(2, len(rss) // 10)
first, last = rss[minute - 1], rss[-1]
mib = lambda kb: f"{kb / 1024:.0f} MiB"
print(f"| {gogc} | {rate} | {workers} | {duration} | {mib(peak)} | {mib(first)} | {mib(last)} | {last / first:.3f} | {rec['errors']} |")
PY
	rm -rf "$work/rec"
done
