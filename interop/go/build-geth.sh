#!/usr/bin/env bash
# Builds go-ethereum's geth (the version interop/go/go.mod pins) from the Go
# module proxy, once, into a cache directory beside Go's build cache, and
# prints the binary's path. The geth --dev tests (TestGethDev*) find it
# through GETH_BIN; .ci/run exports it. A second run reuses the binary.
#   GETH_CACHE=DIR  where to keep it (default: jetrpc-geth beside $(go env GOCACHE))
set -euo pipefail
cd "$(dirname "$0")"
version=$(go list -m -f '{{.Version}}' github.com/ethereum/go-ethereum)
dir=${GETH_CACHE:-$(dirname "$(go env GOCACHE)")/jetrpc-geth}/$version
bin=$dir/geth
if [ ! -x "$bin" ]; then
	mkdir -p "$dir"
	echo "build-geth.sh: building geth $version into $dir (a few minutes, once)" >&2
	start=$(date +%s)
	# go install pkg@version builds with geth's own go.mod, as its release does.
	GOFLAGS=-buildvcs=false GOBIN="$dir/.tmp" go install "github.com/ethereum/go-ethereum/cmd/geth@$version"
	mv "$dir/.tmp/geth" "$bin"
	rmdir "$dir/.tmp"
	echo "build-geth.sh: built in $(($(date +%s) - start)) s" >&2
fi
echo "$bin"
