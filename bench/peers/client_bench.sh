#!/usr/bin/env bash
# Runs BenchmarkClient (client_test.go) $COUNT times, one pass over every
# benchmark at a time, so that a slow minute on a shared machine lands on
# every client alike rather than on the ten samples of one; then benchstat,
# clients as columns. Raw results in $OUT.txt, tables in $OUT.stat (default
# /tmp/client-bench). About 12 minutes on 2 cores. BENCH narrows the run to
# some sub-benchmarks (a -test.bench pattern, default all of BenchmarkClient),
# e.g. BENCH='^BenchmarkClient$/^transport=(tcp|http|ws)$/'.
set -euo pipefail
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/client-bench}
COUNT=${COUNT:-10}
BENCH=${BENCH:-^BenchmarkClient$}
command -v benchstat >/dev/null || go install golang.org/x/perf/cmd/benchstat@latest
BENCHSTAT=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd ../.. && go build -o "$dir/jetrpc" ./cmd/jetrpc)
go test -c -o "$dir/peers.test" .
: > "$OUT.txt"
for _ in $(seq "$COUNT"); do
	JETRPC_BIN="$dir/jetrpc" "$dir/peers.test" -test.run '^$' -test.bench "$BENCH" \
		-test.benchmem -test.count=1 -test.timeout=30m >> "$OUT.txt"
done
"$BENCHSTAT" -col /client -row /transport,/case "$OUT.txt" | tee "$OUT.stat"
