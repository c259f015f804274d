#!/usr/bin/env bash
# Runs the benchmarks that BENCHMARKS.md reports, each beside its baseline in
# the same run, and summarises them with benchstat. Results go to $OUT
# (default /tmp/jetrpc-bench). Takes about 25 minutes on 2 cores. jetrpc is
# measured with its demo methods registered three ways (issue 29): Inline
# (BenchmarkEngine, server=jetrpc: demo.Register), the default way
# (BenchmarkEngineDefault, server=jetrpc-default) and as dispatch.Typed
# handlers (BenchmarkEngineTyped, server=jetrpc-typed). bench/default.sh is
# the short interleaved comparison of the three with the transport's limit.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/jetrpc-bench}
COUNT=${COUNT:-10}
mkdir -p "$OUT"
command -v benchstat >/dev/null || go install golang.org/x/perf/cmd/benchstat@latest
BENCHSTAT=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")

# Engine (Inline, default, typed) vs the encoding/json baseline, in process.
go test -run '^$' -bench '^(BenchmarkEngine|BenchmarkEngineDefault|BenchmarkEngineTyped|BenchmarkStdlib)$' -benchmem -count="$COUNT" ./bench/ > "$OUT/engine.txt"
"$BENCHSTAT" -col .name "$OUT/engine.txt" > "$OUT/engine.stat"

# The scanner vs fastjson.ValidateBytes on the same bytes.
go test -run '^$' -bench '^(BenchmarkScan|BenchmarkFastjsonValidate)$' -benchmem -count="$COUNT" ./decode/ > "$OUT/scan.txt"
"$BENCHSTAT" -col .name "$OUT/scan.txt" > "$OUT/scan.stat"
# The scanner on 64 KiB of each value shape beside fastjson (internal/scan/shapes).
go test -run '^$' -bench '^(BenchmarkShape|BenchmarkShapeFastjson)$' -benchmem -count="$COUNT" ./internal/scan/ > "$OUT/shape.txt"
"$BENCHSTAT" -col .name "$OUT/shape.txt" > "$OUT/shape.stat"

# The batch policy: inline against pooled workers.
go test -run '^$' -bench '^BenchmarkBatchPolicy$' -benchmem -count="$COUNT" ./bench/ > "$OUT/policy.txt"
"$BENCHSTAT" "$OUT/policy.txt" > "$OUT/policy.stat"

# Loopback TCP (echo limit, stdlib over the same loop, jetrpc inline,
# default and typed, jetrpc over TLS) and HTTP (fixed-body fasthttp, jetrpc
# inline, default and typed), load generator in the same process.
go test -run '^$' -bench '^BenchmarkTCP$' -benchtime=100000x -count="$COUNT" ./bench/ > "$OUT/tcp.txt"
"$BENCHSTAT" -col /server -row /mode "$OUT/tcp.txt" > "$OUT/tcp.stat"
# What a new TCP connection costs: dial, no TLS or a full or resumed TLS 1.3 handshake, one call.
go test -run '^$' -bench '^BenchmarkTCPHandshake$' -benchmem -benchtime=2000x -count="$COUNT" ./bench/ > "$OUT/handshake.txt"
"$BENCHSTAT" -col /tls "$OUT/handshake.txt" > "$OUT/handshake.stat"
go test -run '^$' -bench '^BenchmarkHTTP$' -benchtime=100000x -count="$COUNT" ./bench/ > "$OUT/http.txt"
"$BENCHSTAT" -col /server "$OUT/http.txt" > "$OUT/http.stat"
# Loopback WebSocket (echo and stdlib behind net/http + the websocket package,
# jetrpc's /ws inline, default and typed).
go test -run '^$' -bench '^BenchmarkWS$' -benchtime=100000x -count="$COUNT" ./bench/ > "$OUT/ws.txt"
"$BENCHSTAT" -col /server "$OUT/ws.txt" > "$OUT/ws.stat"
cat "$OUT"/*.stat
