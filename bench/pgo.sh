#!/usr/bin/env bash
# bench/pgo.sh: the profile the jetrpc binary is built with
# (cmd/jetrpc/default.pgo: go build and go install apply it by themselves)
# and what it is worth.
#
#   bench/pgo.sh profile [SECONDS]      # write cmd/jetrpc/default.pgo anew
#   bench/pgo.sh ab [ROUNDS] [SECONDS]  # jetrpc serve built without it and with it
#
# profile: builds jetrpc without a profile, runs `jetrpc serve` (its demo
# methods, as users run it) and drives it with `jetrpc bench --target` over
# TCP, HTTP and WebSocket, a mix of small, named, notification, batch10 and
# large calls, SECONDS each (default 10), while /debug/pprof/profile
# records the server's CPU; the profile is written to cmd/jetrpc/default.pgo.
# Run it on a quiet machine after changes to the hot path, and commit it.
#
# ab: both builds of `jetrpc serve`, one after the other for ROUNDS rounds
# (default 3), each measured by the same client (the build without the
# profile) for SECONDS (default 3) per transport and case (small,
# notification); prints calls/s per round and the mean ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-}
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

go build -pgo=off -o "$tmp/jetrpc-off" ./cmd/jetrpc

# serve BIN [ADMIN]: starts BIN serve on free loopback ports; sets pid, TCP, HTTP.
serve() {
	local args=(--tcp 127.0.0.1:0 --http 127.0.0.1:0 --metrics=false)
	[ -n "${2:-}" ] && args+=(--admin 127.0.0.1:0)
	"$1" serve "${args[@]}" >"$tmp/serve.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		grep -q '^listening http ' "$tmp/serve.log" 2>/dev/null && break
		sleep 0.05
	done
	TCP=$(awk '/^listening tcp /{print $3}' "$tmp/serve.log")
	HTTP=$(awk '/^listening http /{print $3}' "$tmp/serve.log")
	ADMIN=$(awk '/^listening admin /{print $3}' "$tmp/serve.log")
	[ -n "$TCP" ] && [ -n "$HTTP" ] || { cat "$tmp/serve.log" >&2; exit 1; }
}

stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }

# load TRANSPORT MIX SECONDS: calls/s of the client against the running server.
load() {
	local addr=$TCP
	[ "$1" != tcp ] && addr=$HTTP
	"$tmp/jetrpc-off" bench --target "$addr" --transport "$1" --mix "$2" \
		--duration "${3}s" --rounds 1 2>&1 | awk '/^  target/{print $2}'
}

case "$MODE" in
profile)
	SECS=${2:-10}
	serve "$tmp/jetrpc-off" admin
	curl -sf -o "$tmp/cpu.pgo" "http://$ADMIN/debug/pprof/profile?seconds=$((3 * SECS + 3))" &
	prof=$!
	sleep 0.5
	for t in tcp http ws; do
		echo "$t: $(load "$t" 'small=4,named=2,notification=2,batch10=1,large=1' "$SECS") calls/s"
	done
	wait "$prof"
	stop
	cp "$tmp/cpu.pgo" cmd/jetrpc/default.pgo
	echo "wrote cmd/jetrpc/default.pgo ($(wc -c <cmd/jetrpc/default.pgo) bytes)"
	;;
ab)
	ROUNDS=${2:-3} SECS=${3:-3}
	go build -o "$tmp/jetrpc-pgo" ./cmd/jetrpc
	out=$tmp/ab.txt
	for r in $(seq "$ROUNDS"); do
		for v in off pgo; do
			serve "$tmp/jetrpc-$v"
			for t in tcp http ws; do
				for m in small notification; do
					echo "$r $v $t $m $(load "$t" "$m" "$SECS")" | tee -a "$out"
				done
			done
			stop
		done
	done
	echo "transport case: calls/s without / with the profile (mean of $ROUNDS), ratio"
	awk '{k=$3" "$4; s[k" "$2]+=$5; n[k" "$2]++; keys[k]=1}
		END {for (k in keys) printf "%s: %.0f / %.0f, %.3fx\n", k, s[k" off"]/n[k" off"], s[k" pgo"]/n[k" pgo"], (s[k" pgo"]/n[k" pgo"])/(s[k" off"]/n[k" off"])}' "$out" | sort
	;;
*)
	echo "usage: bench/pgo.sh profile [SECONDS] | ab [ROUNDS] [SECONDS]" >&2
	exit 2
	;;
esac
