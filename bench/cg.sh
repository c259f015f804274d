#!/usr/bin/env bash
# Instructions per call of in-process benchmarks, under callgrind: immune
# to the load of a shared machine (they do not show what a clock read, an
# atomic or a cache miss costs in time). For each REGEX (one sub-benchmark
# each) it runs the bench test binary BIN at -test.benchtime=2000x and
# (N+2000)x with collection on inside testing.(*B).runN, and prints the
# difference over N (setup cancels out), the least of 3 runs.
# GODEBUG=cpu.rdtscp=off keeps valgrind 3.19 from dying on RDTSCP; set
# GOGC=off to leave the collector's work out (for paths that allocate
# nothing, where it is noise).
#
#   go test -c -o /tmp/bench.test ./bench
#   bench/cg.sh /tmp/bench.test '^BenchmarkEngineTyped$/^notification$' '^BenchmarkEngine$/^notification$'
#   GOGC=off N=20000 bench/cg.sh /tmp/bench.test '^BenchmarkObserve$/^(off|metrics)$/^small$'
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/cg.sh BIN REGEX [REGEX...]" >&2; exit 2; }
cd "$(dirname "$0")"
BIN=$(realpath "$1"); shift
N=${N:-20000}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
count() { # $1 regex, $2 iterations: instructions collected
	GOGC=${GOGC:-100} GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off GOMAXPROCS=1 valgrind --tool=callgrind \
		--callgrind-out-file="$OUT/cg.out" --toggle-collect='testing.(*B).runN' \
		"$BIN" -test.run '^$' -test.bench "$1" -test.benchtime="$2x" 2>&1 |
		grep -o 'Collected : [0-9]*' | grep -o '[0-9]*'
}
for re in "$@"; do
	best=
	for _ in 1 2 3; do
		a=$(count "$re" 2000); b=$(count "$re" $((N + 2000)))
		v=$(((b - a) / N))
		if [ -z "$best" ] || [ "$v" -lt "$best" ]; then best=$v; fi
	done
	echo "$re $best"
done
