#!/usr/bin/env bash
# bench/serve1x1.sh: `jetrpc serve` built at REV and at the work tree, both
# running, at one call at a time: `jetrpc bench --conns 1 --pipeline 1`
# alternates between them for ROUNDS rounds of SECONDS (the order swapped
# every round), and for each server counts its threads' voluntary context
# switches and its CPU time per call; prints the medians. Figures the
# machine's load hardly moves, where a wake-up from idle costs a switch
# (see BENCHMARKS.md, "HTTP connections with raw system calls").
#
#   bench/serve1x1.sh REV [ROUNDS] [TRANSPORT] [SECONDS]   (defaults 10, http, 2)
#
# TRANSPORT is http or tcp. Needs go and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/serve1x1.sh REV [ROUNDS] [TRANSPORT] [SECONDS]" >&2; exit 2; }
REV=$1 ROUNDS=${2:-10} TR=${3:-http} SECS=${4:-2}
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$tmp/base"
git archive "$REV" | tar -x -C "$tmp/base"
(cd "$tmp/base" && go build -o "$tmp/jetrpc-base" ./cmd/jetrpc)
go build -o "$tmp/jetrpc-new" ./cmd/jetrpc
for v in base new; do
	"$tmp/jetrpc-$v" serve --tcp 127.0.0.1:0 --http 127.0.0.1:0 2>"$tmp/$v.log" &
	pids+=($!)
	eval "PID_$v=$!"
	for _ in $(seq 100); do grep -q "^listening $TR" "$tmp/$v.log" && break; sleep 0.05; done
	eval "ADDR_$v=$(awk -v t="$TR" '$1 == "listening" && $2 == t {print $3}' "$tmp/$v.log")"
done
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {n += $2} END {print n + 0}'; }
cputicks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for r in $(seq "$ROUNDS"); do
	order="base new"
	[ $((r % 2)) = 0 ] && order="new base"
	for v in $order; do
		eval "pid=\$PID_$v addr=\$ADDR_$v"
		s0=$(switches "$pid") c0=$(cputicks "$pid")
		"$tmp/jetrpc-new" bench --target "$addr" --transport "$TR" --mix small --conns 1 --pipeline 1 \
			--duration "${SECS}s" --rounds 1 --json 2>/dev/null >"$tmp/run.json"
		s1=$(switches "$pid") c1=$(cputicks "$pid")
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["servers"][0]; n=d["ok"]; a=sys.argv; print(json.dumps({"v":a[2],"p50":d["latency_us"]["p50"],"sw":int(a[3])/n,"cpu_us":int(a[4])*1e6/int(a[5])/n}))' \
			"$tmp/run.json" "$v" $((s1 - s0)) $((c1 - c0)) "$(getconf CLK_TCK)" >>"$tmp/rows.jsonl"
	done
done
python3 - "$tmp/rows.jsonl" "$REV" "$TR" <<'PY'
import json, statistics as st, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| jetrpc serve --%s | p50 µs | switches/call | CPU µs/call |" % sys.argv[3])
print("|---|---:|---:|---:|")
for v, name in (("base", "@" + sys.argv[2]), ("new", "work tree")):
    r = [x for x in rows if x["v"] == v]
    print("| %s | %.0f | %.2f | %.1f |" % (name, st.median(x["p50"] for x in r), st.median(x["sw"] for x in r), st.median(x["cpu_us"] for x in r)))
PY
