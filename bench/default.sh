#!/usr/bin/env bash
# The default path against the transport's limit (issue 29): one
# interleaved run of BenchmarkTCP (pipelined, 32 connections x 16 in flight,
# and request/response, 64 x 1), BenchmarkHTTP and BenchmarkWS, for the line
# echo (server=echo; over HTTP the fixed-body server=fixed) and jetrpc with
# the demo methods registered Inline (server=jetrpc, demo.Register), the
# default way (server=jetrpc-default) and as dispatch.Typed handlers
# (server=jetrpc-typed). ROUNDS rounds (default 3), each running every
# revision's binary once, every server for BENCHTIME (default 3s); it
# prints each server's calls/s per round, their mean, and the mean over the
# line echo's of the same revision. Over WebSocket the echo is bench.WSServer,
# which reads, answers and writes one message at a time (no pipelining), so
# jetrpc may pass it.
#
#   bench/default.sh                   # the working tree
#   bench/default.sh HEAD~3 HEAD       # revisions, as bench/ab.sh (git worktrees)
#
# Raw output and the table go to $OUT (default /tmp/jetrpc-default).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/jetrpc-default}
ROUNDS=${ROUNDS:-3}
BENCHTIME=${BENCHTIME:-3s}
mkdir -p "$OUT"

names=()
if [ $# -eq 0 ]; then
	names=(work)
	go test -c -o "$OUT/bench-work.test" ./bench
	rm -f "$OUT/run.work.txt"
else
	for rev in "$@"; do
		name=$(git rev-parse --short "$rev")
		names+=("$name")
		wt="$OUT/wt-$name"
		[ -d "$wt" ] || git worktree add -f --detach "$wt" "$rev" >/dev/null
		(cd "$wt" && go test -c -o "$OUT/bench-$name.test" ./bench)
		rm -f "$OUT/run.$name.txt"
	done
fi

servers='(echo|echo-raw|fixed|jetrpc|jetrpc-default|jetrpc-typed)'
# (a pattern's levels must all match: BenchmarkTCP has one more, mode=)
patterns=("^BenchmarkTCP\$/^mode=(pipelined|reqresp)\$/^server=$servers\$" "^Benchmark(HTTP|WS)\$/^server=$servers\$")
for round in $(seq 1 "$ROUNDS"); do
	for name in "${names[@]}"; do
		for p in "${patterns[@]}"; do
			(cd bench && "$OUT/bench-$name.test" -test.run '^$' -test.bench "$p" \
				-test.benchtime="$BENCHTIME" -test.count=1 >> "$OUT/run.$name.txt")
		done
	done
	echo "round $round of $ROUNDS done" >&2
done

for name in "${names[@]}"; do
	awk -v rev="$name" '
	/calls\/s/ {
		full = $1; sub(/-[0-9]+$/, "", full)
		n = split(full, part, "/")
		server = part[n]; sub(/^server=/, "", server)
		group = part[1]; sub(/^Benchmark/, "", group)
		if (n == 3) { m = part[2]; sub(/^mode=/, "", m); group = group " " m }
		for (i = 2; i <= NF; i++) if ($i == "calls/s") v = $(i-1)
		key = group SUBSEP server
		sep = (key in cnt) ? ", " : ""
		vals[key] = vals[key] sep sprintf("%.0fk", v / 1000)
		sum[key] += v; cnt[key]++
		if (!(group in seen)) { seen[group] = 1; groups[++ng] = group }
	}
	END {
		split("echo fixed jetrpc jetrpc-default jetrpc-typed", order, " ")
		label["echo"] = "line echo, no JSON"; label["fixed"] = "fixed body, no JSON"
		label["jetrpc"] = "raw, Inline"; label["jetrpc-default"] = "raw, plain Register"
		label["jetrpc-typed"] = "Typed, plain Register"
		printf "revision %s\n", rev
		printf "| transport | server | calls/s (rounds) | mean | x line echo |\n|---|---|---|---|---|\n"
		for (g = 1; g <= ng; g++) {
			group = groups[g]
			base = 0
			for (s = 1; s <= 2; s++) { k = group SUBSEP order[s]; if (k in cnt) base = sum[k] / cnt[k] }
			for (s = 1; s <= 5; s++) {
				k = group SUBSEP order[s]
				if (!(k in cnt)) continue
				mean = sum[k] / cnt[k]
				ratio = "-"
				if (base > 0) ratio = sprintf("%.2f", mean / base)
				printf "| %s | %s | %s | %.0fk | %s |\n", group, label[order[s]], vals[k], mean / 1000, ratio
			}
		}
		print ""
	}' "$OUT/run.$name.txt"
done | tee "$OUT/table.md"
if [ $# -gt 0 ]; then
	for name in "${names[@]}"; do git worktree remove --force "$OUT/wt-$name"; done
fi
