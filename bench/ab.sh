#!/usr/bin/env bash
# Compares revisions on the same machine in one interleaved run: it builds
# the bench package's test binary at each revision (git worktrees), then
# runs BenchmarkTCP, BenchmarkHTTP, BenchmarkWS, BenchmarkEngine,
# BenchmarkEngineDefault and BenchmarkEngineTyped once per binary per round,
# for ROUNDS rounds, and summarises with benchstat (each revision a column).
# Interleaving spreads the machine's drift over every revision alike. The
# network benchmarks measure jetrpc Inline (server=jetrpc), default
# (server=jetrpc-default) and typed (server=jetrpc-typed) where the
# revision has them; a revision without BenchmarkEngineDefault has no
# column in its table.
#
#   bench/ab.sh b23bff4 0f40c80 HEAD      # results in $OUT (default /tmp/jetrpc-ab)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/ab.sh REV REV [REV...]" >&2; exit 2; }
OUT=${OUT:-/tmp/jetrpc-ab}
ROUNDS=${ROUNDS:-10}
mkdir -p "$OUT"
command -v benchstat >/dev/null || go install golang.org/x/perf/cmd/benchstat@latest
BENCHSTAT=$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")

names=()
for rev in "$@"; do
	name=$(git rev-parse --short "$rev")
	names+=("$name")
	wt="$OUT/wt-$name"
	[ -d "$wt" ] || git worktree add -f --detach "$wt" "$rev" >/dev/null
	(cd "$wt" && go test -c -o "$OUT/bench-$name.test" ./bench)
	rm -f "$OUT"/*."$name".txt
done

benches=(TCP HTTP WS Engine EngineDefault EngineTyped)
for round in $(seq 1 "$ROUNDS"); do
	for name in "${names[@]}"; do
		for b in "${benches[@]}"; do
			args=(-test.benchtime=100000x)
			case "$b" in Engine*) args=(-test.benchmem) ;; esac
			(cd bench && "$OUT/bench-$name.test" -test.run '^$' -test.bench "^Benchmark$b\$" "${args[@]}" \
				-test.count=1 >> "$OUT/$b.$name.txt")
		done
	done
	echo "round $round of $ROUNDS done" >&2
done

for b in "${benches[@]}"; do
	cols=()
	for name in "${names[@]}"; do
		if grep -q '^Benchmark' "$OUT/$b.$name.txt"; then cols+=("$name=$OUT/$b.$name.txt"); fi
	done
	if [ ${#cols[@]} -gt 0 ]; then "$BENCHSTAT" "${cols[@]}" > "$OUT/$b.stat"; fi
done
for name in "${names[@]}"; do git worktree remove --force "$OUT/wt-$name"; done
cat "$OUT"/*.stat
