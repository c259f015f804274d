#!/usr/bin/env bash
# A2A measurements (#21): SendMessage (message/send, blocking) req/s and
# allocations per call against jetrpc's a2a package and a2a-go's server
# with the same instant echo agent, the client alone (to subtract its own
# allocations), and the time to a streamed response's first event.
# COUNT=10 BENCHTIME=2s for benchstat; the defaults are a short run.
set -euo pipefail
cd "$(dirname "$0")"
go test -run '^$' -bench . -benchtime "${BENCHTIME:-2s}" -count "${COUNT:-1}" ./
