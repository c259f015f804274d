#!/usr/bin/env bash
# Typed handlers against raw handlers and the encoding/json baselines, in
# process, interleaved: COUNT passes (default 10), each running
# BenchmarkEngine, BenchmarkEngineDefault, BenchmarkEngineTyped and
# BenchmarkStdlib once, and from a
# second test binary built with GOEXPERIMENT=jsonv2 BenchmarkStdlib
# (encoding/json on v2, reported as BenchmarkStdlibOnV2) and
# BenchmarkStdlibV2 (encoding/json/v2 + jsontext), so that the machine's
# drift hits all of them alike. Also the observer's cost
# (BenchmarkObserve: off, a do-nothing observer, Prometheus metrics,
# tracing sampled out). Results and benchstat tables go to $OUT (default
# /tmp/jetrpc-typed).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/jetrpc-typed}
COUNT=${COUNT:-10}
mkdir -p "$OUT"
command -v benchstat >/dev/null || go install golang.org/x/perf/cmd/benchstat@latest
BENCHSTAT=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")
go test -c -o "$OUT/bench.test" ./bench/
GOEXPERIMENT=jsonv2 go test -c -o "$OUT/bench-v2.test" ./bench/
: > "$OUT/typed.txt"
: > "$OUT/observe.txt"
for i in $(seq "$COUNT"); do
	"$OUT/bench.test" -test.run '^$' -test.bench '^(BenchmarkEngine|BenchmarkEngineDefault|BenchmarkEngineTyped|BenchmarkStdlib)$' \
		-test.benchmem -test.count=1 >> "$OUT/typed.txt"
	"$OUT/bench-v2.test" -test.run '^$' -test.bench '^BenchmarkStdlib(V2)?$' -test.benchmem -test.count=1 |
		sed 's/^BenchmarkStdlib\//BenchmarkStdlibOnV2\//' >> "$OUT/typed.txt"
	"$OUT/bench.test" -test.run '^$' -test.bench '^BenchmarkObserve$' -test.benchmem -test.count=1 >> "$OUT/observe.txt"
done
"$BENCHSTAT" -col .name "$OUT/typed.txt" > "$OUT/typed.stat"
"$BENCHSTAT" "$OUT/observe.txt" > "$OUT/observe.stat"
cat "$OUT"/*.stat
