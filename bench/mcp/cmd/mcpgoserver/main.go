// Command mcpgoserver serves the benchmark's mcpgo peer (package mcpgopeer)
// over Streamable HTTP at /mcp, with the allocation report at /debug/mem,
// and prints "listening http ADDR" on stderr.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/jetrpc/jetrpc/bench/mcp/mcpgopeer"
	"github.com/jetrpc/jetrpc/bench/mcp/peerhttp"
)

func main() {
	addr := flag.String("http", "127.0.0.1:0", "listen on ADDR")
	version := flag.String("version", "", "the only protocol version served (empty: all)")
	flag.Parse()
	if err := peerhttp.Serve(*addr, mcpgopeer.Handler(*version)); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgoserver:", err)
		os.Exit(1)
	}
}
