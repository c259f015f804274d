#!/usr/bin/env bash
# Typed against raw handlers, before and after a change, in one
# interleaved run: COUNT rounds (default 10), each running the bench test
# binary BEFORE and then AFTER once on BenchmarkEngine and
# BenchmarkEngineTyped for CASES, so that the machine's drift hits both
# alike. Prints benchstat of before against after, then, for each binary,
# typed against raw (column h) per case. Results go to $OUT (default
# /tmp/jetrpc-typed-ab).
#
#   git stash; go test -c -o /tmp/before.test ./bench; git stash pop   # or at the old revision
#   go test -c -o /tmp/after.test ./bench
#   bench/typed_ab.sh /tmp/before.test /tmp/after.test
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bench/typed_ab.sh BEFORE.test AFTER.test" >&2; exit 2; }
BEFORE=$(realpath "$1") AFTER=$(realpath "$2")
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/jetrpc-typed-ab}
COUNT=${COUNT:-10}
BENCHTIME=${BENCHTIME:-200ms}
CASES=${CASES:-'^(large|notification|small|named)$'}
mkdir -p "$OUT"
command -v benchstat >/dev/null || go install golang.org/x/perf/cmd/benchstat@latest
BENCHSTAT=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")
: > "$OUT/before.txt"
: > "$OUT/after.txt"
for _ in $(seq "$COUNT"); do
	for side in before after; do
		bin=$BEFORE
		[ "$side" = after ] && bin=$AFTER
		"$bin" -test.run '^$' -test.bench "^Benchmark(Engine|EngineTyped)\$/$CASES" -test.benchmem \
			-test.count=1 -test.benchtime="$BENCHTIME" >> "$OUT/$side.txt"
	done
done
# BenchmarkEngine/large-2 -> BenchmarkCase/case=large/h=raw-2, so that
# benchstat puts raw and typed side by side with their ratio.
for side in before after; do
	sed -e 's#^BenchmarkEngineTyped/\([a-z0-9]*\)#BenchmarkCase/case=\1/h=typed#' \
		-e 's#^BenchmarkEngine/\([a-z0-9]*\)#BenchmarkCase/case=\1/h=raw#' \
		-e 's#^\(BenchmarkCase/case=[a-z0-9]*\)\(-[0-9]*\)/\(h=[a-z]*\)#\1/\3\2#' \
		"$OUT/$side.txt" > "$OUT/$side.kinds.txt"
done
"$BENCHSTAT" "$OUT/before.txt" "$OUT/after.txt" | tee "$OUT/ab.stat"
for side in before after; do
	echo "== $side: typed against raw"
	"$BENCHSTAT" -col /h -row /case "$OUT/$side.kinds.txt" | tee "$OUT/$side.kinds.stat"
done
