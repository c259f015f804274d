#!/usr/bin/env bash
# The ACP measurements of #21, beside acp-go-sdk v0.13.0 (bench_test.go says
# how), both agents in one interleaved run: each round runs every agent
# once, the order rotating by round, each benchmark on fresh agent
# processes. BenchmarkUpdates: session/update notifications per second and
# the agent's CPU per update, its resident memory (all, and anonymous)
# idle and at its peak during 10,000-update bursts (read at once, and read
# only after a 300 ms pause); BenchmarkSDKClient: what acp-go-sdk's client
# receives of such a burst. Then benchstat's tables and one table of
# medians.
#
#   interop/acp/bench.sh                      # COUNT=10 rounds of 5 turns
#   COUNT=3 BENCHTIME=3x interop/acp/bench.sh # a short run
#   BENCH=Updates OUT=/tmp/acp.txt interop/acp/bench.sh
set -euo pipefail
cd "$(dirname "$0")"
count=${COUNT:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp/bench.txt}
: >"$out"
benchstat=${BENCHSTAT:-$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")}
if [[ ! -x $benchstat ]]; then
	go install golang.org/x/perf/cmd/benchstat@latest
fi
(cd ../.. && go build -o "$tmp/jetrpc" ./cmd/jetrpc)
go test -c -o "$tmp/acp.test" .
export JETRPC_BIN=$tmp/jetrpc

agents=(jetrpc acp-go-sdk)
benches=${BENCH:-Updates SDKClient}
n=${#agents[@]}
echo "# $(go version), $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < count; r++)); do
	for ((i = 0; i < n; i++)); do
		a=${agents[(i + r) % n]}
		for bench in $benches; do
			"$tmp/acp.test" -test.run '^$' -test.bench "^Benchmark$bench\$/^agent=$a\$" \
				-test.benchtime "${BENCHTIME:-5x}" | grep -v -e '^PASS$' -e '^ok ' >>"$out"
		done
	done
	echo "# round $((r + 1)) of $count done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
echo "# end $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$benchstat" -col '/agent@(jetrpc acp-go-sdk)' "$out"
echo
echo "# medians (value/runs)"
awk -f ../a2a/benchtable.awk "$out"
