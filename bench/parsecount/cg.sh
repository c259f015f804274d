#!/usr/bin/env bash
# Instructions per message of decode.Parser.Parse and of fastjson.ValidateBytes
# on each bench case (callgrind, 1,000 parses): immune to the machine's load.
# Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jetrpc-parsecount}
N=${N:-1000}
mkdir -p "$OUT"
go build -o "$OUT/parsecount" ./bench/parsecount
count() {
	local ir
	ir=$(GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.out" \
		--toggle-collect='main.valid*' "$OUT/parsecount" "$1" "$2" "$N" 2>&1 |
		grep -o 'Collected : [0-9]*' | grep -o '[0-9]*')
	echo $((ir / N))
}
printf '| case | jetrpc (instructions) | fastjson | jetrpc / fastjson |\n|---|---|---|---|\n'
for c in small named large batch10 notification; do
	j=$(count jetrpc "$c"); f=$(count fastjson "$c")
	printf '| %s | %s | %s | %.2fx |\n' "$c" "$j" "$f" "$(awk -v a="$j" -v b="$f" 'BEGIN { print a / b }')"
done
