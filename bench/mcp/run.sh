#!/usr/bin/env bash
# The MCP peer benchmark (issue #15): jetrpc serve --mcp at each revision
# given (git worktrees, like bench/ab.sh and bench/scale.sh) against the
# go-sdk v1.8.0 and mcp-go v1.2.1 servers of this module, one load
# generator, every server in a fresh process for every measurement, the
# order rotating by round. See doc.go.
#
#   bench/mcp/run.sh                 # HEAD
#   bench/mcp/run.sh 5f21269 HEAD    # before and after, side by side
#
# Environment: OUT (/tmp/jetrpc-mcpbench: binaries, mcp.txt), ROUNDS (3),
# DURATION (5s per echo run), CLIENTS (64), SESSIONS (1000), PROGRESS (200),
# VERSIONS (2025-11-25,2026-07-28).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jetrpc-mcpbench}
mkdir -p "$OUT"
revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(HEAD)

servers=()
for rev in "${revs[@]}"; do
	name=$(git rev-parse --short "$rev")
	wt="$OUT/wt-$name"
	[ -d "$wt" ] || git worktree add -f --detach "$wt" "$rev" >/dev/null
	(cd "$wt" && go build -o "$OUT/jetrpc-$name" ./cmd/jetrpc)
	git worktree remove --force "$wt"
	servers+=("jetrpc-$name=jetrpc:$OUT/jetrpc-$name")
done
(cd bench/mcp && go build -o "$OUT/gosdkserver" ./cmd/gosdkserver &&
	go build -o "$OUT/mcpgoserver" ./cmd/mcpgoserver && go build -o "$OUT/mcpbench" ./cmd/mcpbench)
servers+=("go-sdk=gosdk:$OUT/gosdkserver" "mcp-go=mcpgo:$OUT/mcpgoserver")

head="$(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg); ${ROUNDS:-3} rounds, ${DURATION:-5s} per echo run, ${CLIENTS:-64} clients"
echo "$head" | tee "$OUT/mcp.txt"
"$OUT/mcpbench" -rounds "${ROUNDS:-3}" -duration "${DURATION:-5s}" -clients "${CLIENTS:-64}" \
	-sessions "${SESSIONS:-1000}" -progress "${PROGRESS:-200}" \
	-versions "${VERSIONS:-2025-11-25,2026-07-28}" "${servers[@]}" | tee -a "$OUT/mcp.txt"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/mcp.txt"
echo "results: $OUT/mcp.txt"
