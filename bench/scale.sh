#!/usr/bin/env bash
# How jetrpc scales (issue #19), in one interleaved run: req/s, server CPU
# per call and RSS per connection of jetrpc at each connection count beside
# a line server that does no JSON work (bench.LineServer with EchoLine), each
# in a fresh process, the order rotating from round to round; goroutines,
# stacks and RSS of jetrpc before, right after and 1 s after a batch of
# 1,000 and 10,000 blocking calls (and subtract calls), and the bytes that
# first batch allocated, from the server's /metrics; then the engine's own
# first-batch allocations (TestBatchFirstAllocs) and the batch fan-out
# benchmark (BenchmarkBatchFanOut). jetrpc is built at each revision given
# (git worktrees, like bench/ab.sh); the measuring program (bench/scale) and
# the line server come from this tree.
#
#   bench/scale.sh                   # HEAD
#   bench/scale.sh 50550a1 HEAD      # before and after, side by side
#
# Environment: OUT (default /tmp/jetrpc-scale: binaries, scale.txt,
# scale.json), CONNS (16,256,2048,10000), PIPELINE (calls in flight per
# connection, 1), DURATION (per server, connection count and round, 5s),
# ROUNDS (3), BATCHES (1000,10000), ENGINE=0 skips the in-process tests.
#
# 10,000 connections on loopback need that many descriptors in the server's
# process and in the load generator's: the script raises the soft limit to
# the hard one and leaves out the counts that do not fit, saying so.
# Figures are of this machine as it is: run it when nothing else runs.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/jetrpc-scale}
CONNS=${CONNS:-16,256,2048,10000}
PIPELINE=${PIPELINE:-1}
DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
BATCHES=${BATCHES:-1000,10000}
mkdir -p "$OUT"
revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(HEAD)

hard=$(ulimit -Hn)
if [ "$hard" = unlimited ]; then hard=1048576; fi
ulimit -n "$hard" 2>/dev/null || true
soft=$(ulimit -n)
fit=()
for n in ${CONNS//,/ }; do
	if [ $((n + 200)) -le "$soft" ]; then
		fit+=("$n")
	else
		echo "bench/scale.sh: $n connections need $((n + 200)) open files, the limit is $soft: left out" >&2
	fi
done
[ ${#fit[@]} -gt 0 ] || { echo "bench/scale.sh: no connection count fits the open-files limit $soft" >&2; exit 1; }
CONNS=$(IFS=,; echo "${fit[*]}")
echo "open files: $soft; connections: $CONNS; pipeline $PIPELINE; $DURATION per run; $ROUNDS rounds; $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"

servers=()
for rev in "${revs[@]}"; do
	name=$(git rev-parse --short "$rev")
	wt="$OUT/wt-$name"
	[ -d "$wt" ] || git worktree add -f --detach "$wt" "$rev" >/dev/null
	(cd "$wt" && go build -o "$OUT/jetrpc-$name" ./cmd/jetrpc)
	git worktree remove --force "$wt"
	servers+=("$name=$OUT/jetrpc-$name")
done
go build -o "$OUT/scale" ./bench/scale

echo "open files: $soft; connections: $CONNS; pipeline $PIPELINE; $DURATION per run; $ROUNDS rounds; $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)" > "$OUT/scale.txt"
"$OUT/scale" -conns "$CONNS" -pipeline "$PIPELINE" -duration "$DURATION" -rounds "$ROUNDS" \
	-batches "$BATCHES" -json "$OUT/scale.json" "${servers[@]}" | tee -a "$OUT/scale.txt"

if [ "${ENGINE:-1}" != 0 ]; then
	echo "== the engine's first batch on a fresh engine (this tree; TestBatchFirstAllocs)" | tee -a "$OUT/scale.txt"
	go test -count=1 -run '^TestBatchFirstAllocs$' -v ./dispatch | grep -E 'first batch|^(ok|FAIL|---)' | tee -a "$OUT/scale.txt"
	echo "== batch fan-out (this tree; BenchmarkBatchFanOut)" | tee -a "$OUT/scale.txt"
	go test -run '^$' -bench '^BenchmarkBatchFanOut$' -benchtime 10x ./dispatch | grep -E '^Benchmark' | tee -a "$OUT/scale.txt"
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/scale.txt"
echo "results: $OUT/scale.txt, $OUT/scale.json"
