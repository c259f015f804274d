#!/usr/bin/env bash
# permessage-deflate over WebSocket, a 64 KiB log-like result: compression
# off and on interleaved (ROUNDS rounds, each side once per round), then
# the heap per connection over 1,000 connections. benchstat compares the
# sides; the figures are in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")"
out=${OUT:-/tmp/ws_deflate.txt}
: >"$out"
go test -c -o /tmp/ws_deflate.test .
for _ in $(seq "${ROUNDS:-10}"); do
	for side in off on; do
		/tmp/ws_deflate.test -test.run '^$' -test.bench "^BenchmarkWSDeflate\$/compression=$side\$" \
			-test.benchtime "${BENCHTIME:-1s}" | grep '^Benchmark' | tee -a "$out"
	done
done
/tmp/ws_deflate.test -test.run '^$' -test.bench '^BenchmarkWSDeflateMemory$' -test.benchtime 1x | grep '^Benchmark' | tee -a "$out"
"$(go env GOPATH)/bin/benchstat" -col /compression "$out"
