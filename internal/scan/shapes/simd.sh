#!/usr/bin/env bash
# The scanner with and without its SIMD lanes (GOEXPERIMENT=simd), beside
# fastjson and simdjson-go, on the 64 KiB shapes; then BenchmarkEngine
# (bench/) built both ways. One interleaved run: each round runs every
# binary once, ROUNDS rounds, then benchstat (columns: portable, simd,
# fastjson, simdjson-go; engine: portable, simd).
#
#   internal/scan/shapes/simd.sh              # results in $OUT (default /tmp/jetrpc-simd)
#   ROUNDS=10 BENCHTIME=1s ENGINE=0 internal/scan/shapes/simd.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/jetrpc-simd}
ROUNDS=${ROUNDS:-10}
BENCHTIME=${BENCHTIME:-1s}
ENGINE=${ENGINE:-1}
mkdir -p "$OUT"
command -v benchstat >/dev/null || [ -x "$(go env GOPATH)/bin/benchstat" ] || go install golang.org/x/perf/cmd/benchstat@latest
BENCHSTAT=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")

go test -c -o "$OUT/scan.test" ./internal/scan
GOEXPERIMENT=simd go test -c -o "$OUT/scan-simd.test" ./internal/scan
(cd internal/scan/shapes/simdjson && go test -c -o "$OUT/simdjson.test" .)
if [ "$ENGINE" = 1 ]; then
	go test -c -o "$OUT/bench.test" ./bench
	GOEXPERIMENT=simd go test -c -o "$OUT/bench-simd.test" ./bench
fi
rm -f "$OUT"/*.txt

shape() { # shape BINARY BENCH NAME: one run, renamed to BenchmarkShape/* in NAME.txt
	"$OUT/$1" -test.run '^$' -test.bench "^$2\$" -test.benchtime "$BENCHTIME" -test.benchmem |
		sed -n "s/^$2\//BenchmarkShape\//p" >> "$OUT/$3.txt"
}
for round in $(seq 1 "$ROUNDS"); do
	echo "round $round/$ROUNDS" >&2
	shape scan.test BenchmarkShape portable
	shape scan-simd.test BenchmarkShape simd
	shape scan.test BenchmarkShapeFastjson fastjson
	shape simdjson.test BenchmarkShapeSimdjson simdjson-go
	if [ "$ENGINE" = 1 ]; then
		for b in bench bench-simd; do
			(cd bench && "$OUT/$b.test" -test.run '^$' -test.bench '^BenchmarkEngine$' -test.benchmem) |
				grep '^Benchmark' >> "$OUT/engine-$b.txt"
		done
	fi
done
(cd "$OUT" && "$BENCHSTAT" portable.txt simd.txt fastjson.txt simdjson-go.txt)
if [ "$ENGINE" = 1 ]; then
	(cd "$OUT" && "$BENCHSTAT" portable=engine-bench.txt simd=engine-bench-simd.txt)
fi
