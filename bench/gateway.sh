#!/usr/bin/env bash
# bench/gateway.sh: jetrpc proxy beside a direct call and beside
# net/http/httputil.ReverseProxy (bench/revproxy), and over TCP beside
# bench/tcprelay (a Go relay that copies bytes, no parsing: the latency
# floor of a proxy on the network poller; with raw system calls as jetrpc,
# and through net.Conn), on loopback, one run,
# the targets interleaved round by round. For each of HTTP and TCP, single
# calls (small) and batches of 10 (batch10): calls/s under load (32 conns x
# 16 in flight) and p50 at one call at a time (the latency a proxy adds),
# then the proxy's memory per idle client connection. At one call at a time
# it also counts, for the process that serves the target (the upstream for
# "direct"), its threads' voluntary context switches and its CPU time per
# message (a batch is one): figures the machine's load hardly moves, where
# each goroutine hand-off from idle costs a switch. "cache hits" is the
# TCP-upstream proxy with --cache for the mixes' method (subtract): after
# the first call every call is a hit, the upstream never sees it; its
# ratio to the uncached proxy (same listener) is printed under the table.
#
#   bench/gateway.sh [ROUNDS] [SECONDS]     (defaults 3 and 2)
#   BASE=REV bench/gateway.sh ...           (adds jetrpc proxy built at REV)
#   bench/gateway.sh go BASE [ROUNDS]       (BenchmarkGateway, BASE vs the
#                                            work tree, interleaved, benchstat)
#
# Needs go and python3. Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# base REV: the source tree at REV, in $tmp/base.
base() {
	mkdir -p "$tmp/base"
	git archive "$1" | tar -x -C "$tmp/base"
}

if [ "${1:-}" = go ]; then
	# One call at a time over loopback TCP, direct and through the
	# gateway, in one process (bench/gateway_test.go, copied into BASE's
	# tree): ROUNDS rounds, the two binaries taking turns.
	base "$2"
	cp bench/gateway_test.go "$tmp/base/bench/"
	(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./bench)
	go test -c -o "$tmp/new.test" ./bench
	for _ in $(seq "${3:-10}"); do
		for v in base new; do
			(cd bench && "$tmp/$v.test" -test.run '^$' -test.bench '^BenchmarkGateway$' -test.benchtime 20000x \
				-test.benchmem >>"$tmp/$v.txt")
		done
	done
	command -v benchstat >/dev/null || go install golang.org/x/perf/cmd/benchstat@latest
	"$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")" base="$tmp/base.txt" new="$tmp/new.txt"
	exit 0
fi

ROUNDS=${1:-3}
SECS=${2:-2}
go build -o "$tmp/jetrpc" ./cmd/jetrpc
go build -o "$tmp/revproxy" ./bench/revproxy
go build -o "$tmp/tcprelay" ./bench/tcprelay
if [ -n "${BASE:-}" ]; then
	base "$BASE"
	(cd "$tmp/base" && go build -o "$tmp/jetrpc-base" ./cmd/jetrpc)
fi

# start NAME CMD... : runs CMD, waits for its listening lines, sets
# ADDR_<NAME>_<KIND> for each.
start() {
	local name=$1; shift
	"$@" 2>"$tmp/$name.log" &
	pids+=($!)
	eval "PID_$name=$!"
	for _ in $(seq 100); do grep -q '^listening' "$tmp/$name.log" && sleep 0.2 && break; sleep 0.05; done
	while read -r _ kind addr; do eval "ADDR_${name}_${kind}=$addr"; done < <(grep '^listening' "$tmp/$name.log")
}
start up "$tmp/jetrpc" serve --tcp 127.0.0.1:0 --http 127.0.0.1:0
start rp "$tmp/revproxy" --upstream "http://$ADDR_up_http/"
start relay "$tmp/tcprelay" --upstream "$ADDR_up_tcp"
start relaynet "$tmp/tcprelay" --upstream "$ADDR_up_tcp" --net
start gwt "$tmp/jetrpc" proxy --upstream "tcp://$ADDR_up_tcp" --tcp 127.0.0.1:0 --http 127.0.0.1:0 --probe ""
start gwc "$tmp/jetrpc" proxy --upstream "tcp://$ADDR_up_tcp" --tcp 127.0.0.1:0 --http 127.0.0.1:0 --probe "" --cache subtract=1h
start gwh "$tmp/jetrpc" proxy --upstream "http://$ADDR_up_http/" --tcp "" --http 127.0.0.1:0 --probe ""
if [ -n "${BASE:-}" ]; then
	start gwb "$tmp/jetrpc-base" proxy --upstream "tcp://$ADDR_up_tcp" --tcp 127.0.0.1:0 --http 127.0.0.1:0 --probe ""
fi

# name transport target process (the one that serves the target: its
# context switches and CPU time per call are counted at one call at a time)
targets=(
	"direct|http|$ADDR_up_http|$PID_up"
	"ReverseProxy|http|$ADDR_rp_http|$PID_rp"
	"jetrpc proxy, TCP upstream|http|$ADDR_gwt_http|$PID_gwt"
	"jetrpc proxy, HTTP upstream|http|$ADDR_gwh_http|$PID_gwh"
	"jetrpc proxy, cache hits|http|$ADDR_gwc_http|$PID_gwc"
	"direct|tcp|$ADDR_up_tcp|$PID_up"
	"TCP relay (copies bytes)|tcp|$ADDR_relay_tcp|$PID_relay"
	"TCP relay, net.Conn|tcp|$ADDR_relaynet_tcp|$PID_relaynet"
	"jetrpc proxy, TCP upstream|tcp|$ADDR_gwt_tcp|$PID_gwt"
	"jetrpc proxy, cache hits|tcp|$ADDR_gwc_tcp|$PID_gwc"
)
if [ -n "${BASE:-}" ]; then
	targets+=("jetrpc proxy @$BASE, TCP upstream|http|$ADDR_gwb_http|$PID_gwb" "jetrpc proxy @$BASE, TCP upstream|tcp|$ADDR_gwb_tcp|$PID_gwb")
fi
# switches PID: the voluntary context switches of all its threads;
# cputicks PID: its user and system time, in clock ticks.
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {n += $2} END {print n + 0}'; }
cputicks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
out="$tmp/results.jsonl"
for round in $(seq "$ROUNDS"); do
	for mix in small batch10; do
		for load in "32 16" "1 1"; do
			set -- $load
			for t in "${targets[@]}"; do
				IFS='|' read -r name transport addr pid <<<"$t"
				sw0=$(switches "$pid") cpu0=$(cputicks "$pid")
				"$tmp/jetrpc" bench --target "$addr" --transport "$transport" --mix "$mix" --conns "$1" --pipeline "$2" \
					--duration "${SECS}s" --rounds 1 --json 2>/dev/null >"$tmp/run.json"
				sw1=$(switches "$pid") cpu1=$(cputicks "$pid")
				python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["servers"][0]; a=sys.argv; print(json.dumps({"name":a[2],"transport":a[3],"mix":a[4],"conns":int(a[5]),"rps":s["req_per_s"],"p50":s["latency_us"]["p50"],"failed":s["failed"]+s["errors"]+s["unanswered"],"ok":s["ok"],"switches":int(a[6]),"cpu_us":int(a[7])*1e6/int(a[8])}))' \
					"$tmp/run.json" "$name" "$transport" "$mix" "$1" $((sw1 - sw0)) $((cpu1 - cpu0)) "$(getconf CLK_TCK)" >>"$out"
			done
		done
	done
done

# Memory per idle client connection: 2,000 TCP connections to the proxy,
# each answered one call, then left open.
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
before=$(rss "$PID_gwt")
python3 - "$ADDR_gwt_tcp" "$PID_gwt" "$before" >"$tmp/mem.txt" <<'PY'
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
pid, before = sys.argv[2], int(sys.argv[3])
conns = []
for i in range(2000):
    s = socket.create_connection((host, int(port)))
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"subtract","params":[2,1]}\n')
    conns.append(s)
for s in conns:
    s.recv(100)
time.sleep(2)
rss = [int(l.split()[1]) for l in open("/proc/%s/status" % pid) if l.startswith("VmRSS")][0]
print("%d %d" % (before, rss))
PY

python3 - "$out" "$tmp/mem.txt" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1])]
def med(xs): return statistics.median(xs)
print("| client | through | mix | calls/s (32x16) | vs ReverseProxy | p50 µs (1x1) | p50 added µs | switches/msg (1x1) | CPU µs/msg (1x1) |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|")
for transport in ("http", "tcp"):
    for mix in ("small", "batch10"):
        sel = [r for r in rows if r["transport"] == transport and r["mix"] == mix]
        names = []
        for r in sel:
            if r["name"] not in names: names.append(r["name"])
        stat = {}
        for n in names:
            load = [r for r in sel if r["name"] == n and r["conns"] == 32]
            lat = [r for r in sel if r["name"] == n and r["conns"] == 1]
            msgs = sum(r.get("ok", 0) for r in lat) or 1
            stat[n] = (med([r["rps"] for r in load]), med([r["p50"] for r in lat]), sum(r["failed"] for r in load + lat),
                       sum(r.get("switches", 0) for r in lat) / msgs, sum(r.get("cpu_us", 0) for r in lat) / msgs)
        calls = 10 if mix == "batch10" else 1
        rp = stat.get("ReverseProxy")
        for n in names:
            rps, p50, failed, sw, cpu = stat[n]
            ratio = "%.2fx" % (rps / rp[0]) if rp and n != "ReverseProxy" and n != "direct" else ""
            added = "" if n == "direct" else "%.0f" % (p50 - stat["direct"][1])
            note = " (%d failed)" % failed if failed else ""
            print("| %s | %s | %s | %.0f%s | %s | %.0f | %s | %.1f | %.0f |" % (transport.upper(), n, mix, rps * calls, note, ratio, p50, added, sw, cpu))
print()
for transport in ("http", "tcp"):
    for mix in ("small", "batch10"):
        def rps(n):
            xs = [r["rps"] for r in rows if r["transport"] == transport and r["mix"] == mix and r["name"] == n and r["conns"] == 32]
            return med(xs) if xs else 0
        hit, miss = rps("jetrpc proxy, cache hits"), rps("jetrpc proxy, TCP upstream")
        if hit and miss:
            print("cache hits / uncached, %s %s: %.2fx" % (transport.upper(), mix, hit / miss))
try:
    before, after = open(sys.argv[2]).read().split()
    print("\nproxy RSS: %d KiB before, %d KiB with 2,000 idle TCP client connections: %.1f KiB each" % (int(before), int(after), (int(after) - int(before)) / 2000))
except Exception:
    pass
PY
