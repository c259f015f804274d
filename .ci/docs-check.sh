#!/usr/bin/env bash
# The code blocks of README.md and docs/*.md (#30), checked by the Go
# program in .ci/docscheck (its own module, standard library only): every
# Go block compiles in a temporary module with a replace directive to this
# checkout (fragments as function bodies), every sh block parses, and the
# sh blocks marked <!-- docs-check: serve --> / <!-- docs-check: run -->
# start the server and call it with the jetrpc binary ($JETRPC_BIN, else
# built here), comparing the JSON outputs the docs state. About 15 s with
# a warm build cache; bounded at 2 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== docs: the code blocks of README.md and docs/ compile and run (.ci/docs-check.sh)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${JETRPC_BIN:-}
if [ -z "$bin" ]; then
	bin="$tmp/jetrpc"
	go build -o "$bin" ./cmd/jetrpc
fi
(cd .ci/docscheck && go vet . && go build -o "$tmp/docscheck" .)
timeout 120 "$tmp/docscheck" -root "$PWD" -bin "$bin"
