#!/usr/bin/env bash
# Instructions per byte of validating each 64 KiB shape (internal/scan/shapes)
# with scan.Valid and with fastjson.ValidateBytes, counted by callgrind: a
# measure the load of a shared machine does not disturb. Needs valgrind.
#
#   internal/scan/shapes/cg.sh            # the working tree
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/jetrpc-shapes}
RUNS=${RUNS:-20}
mkdir -p "$OUT"
go build -o "$OUT/count" ./internal/scan/shapes/count
count() { # count SHAPE [-fastjson]: instructions per byte
	local ir
	ir=$(GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.out" \
		--toggle-collect='main.valid*' "$OUT/count" ${2:-} "$1" "$RUNS" 2>&1 |
		grep -o 'Collected : [0-9]*' | grep -o '[0-9]*')
	awk -v ir="$ir" -v n="$RUNS" 'BEGIN { printf "%.2f", ir / (n * 65536) }'
}
printf '| shape | jetrpc (instructions/byte) | fastjson | fastjson / jetrpc |\n|---|---|---|---|\n'
for s in strings ints escapes uescapes eth lsp; do
	j=$(count "$s"); f=$(count "$s" -fastjson)
	printf '| %s | %s | %s | %.2fx |\n' "$s" "$j" "$f" "$(awk -v a="$f" -v b="$j" 'BEGIN { print a / b }')"
done
