#!/usr/bin/env bash
# deploy/rolling-restart.sh: three `jetrpc serve` replicas behind a real
# HAProxy (deploy/haproxy.cfg, Debian's package) on loopback. For each
# transport it puts `jetrpc bench --target` load through HAProxy against one
# replica, then against three (before), then restarts each replica in turn
# while the load runs (during: SIGTERM, the replica drains with /readyz 503,
# closes, answers what it has read, exits, and starts again), then once more
# (after); it prints the calls sent, answered and failed and the req/s of
# each run, and checks:
#
#   http: no call failed, in any run, and the replicas handled exactly the
#         calls that were answered;
#   tcp, ws (WebSocket, routed by HAProxy on the upgrade):
#         every call a replica accepted was answered (the calls the replicas
#         logged handling equal the answers), nothing was left unanswered or
#         mismatched, and every connection reconnected and carried on
#         (reconnects >= connections, answers after the restarts). The calls
#         lost with a closed connection, written but never read by the
#         replica, are shown as dropped.
#
# It installs haproxy, curl and jq with apt-get when they are missing, and
# exits 3 when it cannot. Environment: MODES ("http tcp ws"), PHASE (seconds of
# each measured run outside the restarts, 3), DRAIN (--drain, 1s), INTER
# (HAProxy's check interval, 100ms), JETRPC_BIN (a built jetrpc; else built
# here). It takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."

MODES=${MODES:-"http tcp ws"}
PHASE=${PHASE:-3}
DRAIN=${DRAIN:-1s}
INTER=${INTER:-100ms}
CONF=deploy/haproxy.cfg

say() { echo "rolling-restart: $*" >&2; }
die() {
	say "FAIL: $*"
	exit 1
}

# ---- what it needs ----
install_missing() {
	local missing=()
	command -v haproxy >/dev/null || missing+=(haproxy)
	command -v curl >/dev/null || missing+=(curl)
	command -v jq >/dev/null || missing+=(jq)
	[ ${#missing[@]} -eq 0 ] && return
	local sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null || {
			say "cannot install ${missing[*]}: not root and no sudo. This check needs a real HAProxy; install Debian's haproxy package."
			exit 3
		}
		sudo="sudo -n"
	fi
	say "installing ${missing[*]} from Debian's packages"
	export DEBIAN_FRONTEND=noninteractive
	if ! { timeout 300 $sudo apt-get update -qq && timeout 300 $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2; then
		say "could not install ${missing[*]} with apt-get (see above). This check needs a real HAProxy and does not run without it."
		exit 3
	fi
}
install_missing
haproxy -v | sed -n 1p >&2

tmp=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -n "${KEEP:-}" ] && say "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT

if [ -z "${JETRPC_BIN:-}" ]; then
	JETRPC_BIN=$tmp/jetrpc
	go build -o "$JETRPC_BIN" ./cmd/jetrpc
fi

# freeport VAR sets VAR to a loopback port nobody listens on, below the
# usual ephemeral range (so that no outgoing connection holds it), and not
# one it picked before.
PICKED=" "
freeport() {
	local p
	for _ in $(seq 100); do
		p=$((20000 + RANDOM % 12000))
		case $PICKED in *" $p "*) continue ;; esac
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
		PICKED+="$p "
		printf -v "$1" %s "$p"
		return
	done
	die "no free port"
}

# within SECONDS CMD...: run CMD every 20 ms until it succeeds; false after SECONDS.
within() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.02
	done
}

# ---- replicas ----
declare -A TCP HTTP ADMIN PID LIFE
alive() { kill -0 "$1" 2>/dev/null; }

# start N: starts replica N (on its ports, or free ones the first time) and
# waits for its three listening lines.
start() {
	local n=$1 log
	LIFE[$n]=$((${LIFE[$n]:-0} + 1))
	log=$tmp/$MODE.r$n.${LIFE[$n]}.log
	"$JETRPC_BIN" serve --tcp "127.0.0.1:${TCP[$n]:-0}" --http "127.0.0.1:${HTTP[$n]:-0}" \
		--admin "127.0.0.1:${ADMIN[$n]:-0}" --drain "$DRAIN" 2>"$log" &
	PID[$n]=$!
	PIDS+=($!)
	within 10 listening "$log" || die "replica $n did not start: $(cat "$log")"
	TCP[$n]=$(port "$log" tcp) HTTP[$n]=$(port "$log" http) ADMIN[$n]=$(port "$log" admin)
}

# listening LOG: whether the replica logging to LOG printed its three
# listening lines.
listening() { [ "$(grep -sc '^listening ' "$1")" = 3 ]; }

# port LOG KIND: the port of the "listening KIND ADDR" line in LOG.
port() { awk -v k="$2" '$1 == "listening" && $2 == k { n = split($3, a, ":"); print a[n] }' "$1"; }

# term N: SIGTERM to replica N (it drains, then shuts down); reap N waits
# (bounded) for it to exit 0.
term() { kill -TERM "${PID[$1]}"; }
reap() {
	local p=${PID[$1]}
	within 30 bash -c "! kill -0 $p 2>/dev/null" || die "replica $1 did not exit after SIGTERM"
	wait "$p" || die "replica $1 exited $? after SIGTERM"
}
stop() {
	term "$1"
	reap "$1"
}

# served: the calls every replica of this mode handled, from the
# "stopped calls=N" line each one logs when it exits.
served() {
	cat "$tmp/$MODE".r*.log | sed -n 's/.*msg=stopped calls=\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }'
}

# ---- HAProxy ----
stat() { # stat BACKEND SERVER COLUMN: one value of the stats CSV
	curl -fs "http://$JETRPC_LB_STATS/stats;csv" | awk -F, -v b="$1" -v s="$2" -v c="$3" '
		NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == b && $2 == s { print $col[c] }'
}
is_status() { [ "$(stat "$BACKEND" "r$1" status 2>/dev/null)" = "$2" ]; }

# ---- bench ----
# bench LABEL SECONDS: one `jetrpc bench --target` run through HAProxy.
bench() {
	local args=(bench --target "$TARGET" --transport "$MODE" --duration "$2s" --rounds 1 --warmup=false
		--timeout 5s --json)
	if [ "$MODE" != http ]; then
		args+=(--conns 8 --pipeline 8 --reconnect)
	else
		args+=(--conns 16 --pipeline 1)
	fi
	"$JETRPC_BIN" "${args[@]}" >"$tmp/$MODE.$1.json" 2>"$tmp/$MODE.$1.err" || true
	jq -e '.servers[0]' "$tmp/$MODE.$1.json" >/dev/null 2>&1 || die "$MODE $1: jetrpc bench failed: $(cat "$tmp/$MODE.$1.err")"
}
field() { jq -r ".servers[0].$2" "$tmp/$MODE.$1.json"; }
report() {
	jq -r --arg name "$1" '.servers[0] | [$name, .calls, .ok + .errors, .failed, .dropped, .reconnects, .req_per_s] |
		@tsv' "$tmp/$MODE.$1.json" |
		awk -F'\t' -v mode="$MODE" '{ printf "%-4s %-7s sent %8d  answered %8d  failed %5d  (dropped %d, reconnects %d)  req/s %7.0f\n", mode, $1, $2, $3, $4, $5, $6, $7 }'
}

# ---- one transport ----
run_mode() {
	MODE=$1
	TCP=() HTTP=() ADMIN=() PID=() LIFE=()
	for n in 1 2 3; do start "$n"; done
	local lb_http lb_tcp lb_stats
	freeport lb_http
	freeport lb_tcp
	freeport lb_stats
	export JETRPC_LB_HTTP=127.0.0.1:$lb_http JETRPC_LB_TCP=127.0.0.1:$lb_tcp JETRPC_LB_STATS=127.0.0.1:$lb_stats
	export JETRPC_CHECK_INTER=$INTER
	for n in 1 2 3; do
		export "JETRPC_R${n}_HTTP=127.0.0.1:${HTTP[$n]}" "JETRPC_R${n}_TCP=127.0.0.1:${TCP[$n]}" "JETRPC_R${n}_HTTP_PORT=${HTTP[$n]}"
	done
	case $MODE in
	http) BACKEND=jetrpc_http TARGET=$JETRPC_LB_HTTP ;;
	tcp) BACKEND=jetrpc_tcp TARGET=$JETRPC_LB_TCP ;;
	ws) BACKEND=jetrpc_ws TARGET=$JETRPC_LB_HTTP ;; # GET /ws, routed by the upgrade
	*) die "unknown mode $MODE (http, tcp or ws)" ;;
	esac

	haproxy -c -q -f "$CONF" || die "haproxy -c rejects $CONF"
	haproxy -db -f "$CONF" >"$tmp/$MODE.haproxy.log" 2>&1 &
	local hp=$!
	PIDS+=($hp)
	within 10 curl -fs -o /dev/null "http://$JETRPC_LB_STATS/stats" || die "haproxy did not start: $(cat "$tmp/$MODE.haproxy.log")"

	# one replica behind HAProxy, then three
	stop 2
	stop 3
	within 10 is_status 2 DOWN && within 10 is_status 3 DOWN || die "HAProxy did not mark r2, r3 down"
	within 10 is_status 1 UP || die "HAProxy did not mark r1 up"
	bench single "$PHASE"
	start 2
	start 3
	for n in 1 2 3; do within 10 is_status "$n" UP || die "HAProxy did not mark r$n up"; done
	bench before "$PHASE"

	# the rolling restart, under load
	local during=$((3 + 3 * 3)) t0=$SECONDS # a restart takes about 1.5 s here; room for a slower machine
	bench during "$during" &
	local bp=$!
	sleep 1
	for n in 1 2 3; do
		term "$n"
		within 10 is_status "$n" DOWN || die "HAProxy did not mark r$n down while it drained"
		reap "$n"
		start "$n"
		within 10 is_status "$n" UP || die "HAProxy did not mark r$n up again"
		sleep 0.3
	done
	alive "$bp" || die "the restarts took longer than the load (${during}s)"
	say "$MODE: restarted r1, r2, r3 one after another in about $((SECONDS - t0 - 1))s, under load"
	wait "$bp"
	bench after "$PHASE"

	local retries redisp
	retries=$(stat "$BACKEND" BACKEND wretr) redisp=$(stat "$BACKEND" BACKEND wredis)
	for n in 1 2 3; do stop "$n"; done
	kill -TERM "$hp"
	wait "$hp" || true

	for r in single before during after; do report "$r"; done
	local sent=0 answered=0 failed=0 unanswered=0 bad=0
	for r in single before during after; do
		sent=$((sent + $(field $r calls)))
		answered=$((answered + $(field $r ok) + $(field $r errors)))
		failed=$((failed + $(field $r failed)))
		unanswered=$((unanswered + $(field $r unanswered)))
		bad=$((bad + $(field $r mismatched) + $(field $r malformed) + $(field $r errors)))
	done
	local handled
	handled=$(served)
	echo "$MODE all     sent $sent, answered $answered, failed $failed; the replicas handled $handled calls; HAProxy retried $retries, redispatched $redisp"

	[ "$handled" -eq "$answered" ] ||
		die "$MODE: the replicas handled $handled calls but $answered were answered"
	if [ "$MODE" = http ]; then
		[ "$failed" -eq 0 ] || die "http: $failed calls failed"
	else
		[ "$unanswered" -eq 0 ] && [ "$bad" -eq 0 ] || die "$MODE: $unanswered unanswered, $bad mismatched, malformed or errors"
		[ "$(field during reconnects)" -ge 8 ] || die "$MODE: $(field during reconnects) reconnects for 8 connections"
		[ "$(field after ok)" -gt 0 ] || die "$MODE: nothing answered after the restarts"
		printf '%-4s every accepted call answered; %d calls dropped with the connections the replicas closed (sent, never read), %d reconnects\n' \
			"$MODE" "$(field during dropped)" "$(field during reconnects)"
	fi
}

for m in $MODES; do run_mode "$m"; done
say "ok"
