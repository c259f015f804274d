#!/usr/bin/env bash
# The ACP measurements of #21, beside acp-go-sdk v0.13.0 (bench_test.go says
# how): session/update notifications per second and the agent's CPU per
# update, its resident memory idle and at its peak during 10,000-update
# bursts (read at once, and read only after a 300 ms pause), and what
# acp-go-sdk's client receives of such a burst. Short runs: COUNT runs of
# BENCHTIME turns each (default 3 x 5).
#
#   interop/acp/bench.sh                 # everything
#   BENCH=Updates COUNT=10 interop/acp/bench.sh
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd ../.. && go build -o "$tmp/jetrpc" ./cmd/jetrpc)
echo "# $(go version), $(nproc) CPUs, $(date -u +%Y-%m-%d)"
JETRPC_BIN="$tmp/jetrpc" go test -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-5x}" -count "${COUNT:-3}" .
