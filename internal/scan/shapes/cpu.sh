#!/usr/bin/env bash
# The scanner at two revisions, built with GOEXPERIMENT=simd (so on this
# machine's SIMD level: AVX-512 where there is one, which callgrind cannot
# run), timed by the user CPU seconds of the count command validating each
# 64 KiB shape N times: interleaved, ROUNDS rounds, the median of each side
# in GB/s and new / old. User time is less disturbed by a loaded machine than
# wall time (it leaves out the time the process waits for a core), not
# immune: compare the two sides of one run only.
#
#   internal/scan/shapes/cpu.sh OLD NEW            # revisions (NEW may be "." for the working tree)
#   ROUNDS=9 SHAPES="lsp strings" internal/scan/shapes/cpu.sh HEAD~3 .
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/jetrpc-cpu}
ROUNDS=${ROUNDS:-7}
SHAPES=${SHAPES:-strings ints escapes uescapes eth lsp}
old=$1 new=$2
mkdir -p "$OUT"
build() { # build REV NAME
	if [ "$1" = . ]; then
		GOEXPERIMENT=simd go build -o "$OUT/$2" ./internal/scan/shapes/count
		return
	fi
	rm -rf "$OUT/src-$2" && mkdir -p "$OUT/src-$2"
	git archive "$1" | tar -x -C "$OUT/src-$2"
	(cd "$OUT/src-$2" && GOEXPERIMENT=simd go build -o "$OUT/$2" ./internal/scan/shapes/count)
}
build "$old" old
build "$new" new
n() { case $1 in lsp) echo 20000 ;; *) echo 40000 ;; esac; }
printf '| shape | old GB/s | new GB/s | new / old |\n|---|---|---|---|\n'
for s in $SHAPES; do
	for r in $(seq 1 "$ROUNDS"); do
		for side in old new; do
			t=$({ /usr/bin/time -f '%U' "$OUT/$side" "$s" "$(n "$s")" >/dev/null; } 2>&1 | tail -1)
			echo "$side $t"
		done
	done | sort -k1,1 -k2,2n | awk -v s="$s" -v n="$(n "$s")" '
		{ v[$1, ++c[$1]] = $2 }
		END {
			o = v["old", int((c["old"] + 1) / 2)]; w = v["new", int((c["new"] + 1) / 2)]
			printf "| %s | %.2f | %.2f | %.2fx |\n", s, n * 65536 / o / 1e9, n * 65536 / w / 1e9, o / w
		}'
done
