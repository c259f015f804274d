// Command mcpbench measures MCP servers over Streamable HTTP (package
// mcpbench): each NAME=KIND:BINARY argument is a server (KIND jetrpc,
// gosdk or mcpgo), run in a fresh process for every measurement, the
// order rotating by round. It prints one table of medians and the ratios
// of each jetrpc server to the best peer.
//
//	mcpbench -rounds 3 HEAD=jetrpc:/tmp/jetrpc go-sdk=gosdk:/tmp/gosdkserver mcp-go=mcpgo:/tmp/mcpgoserver
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	mcpbench "github.com/jetrpc/jetrpc/bench/mcp"
)

func main() {
	var cfg mcpbench.Config
	flag.IntVar(&cfg.Clients, "clients", 64, "concurrent clients of the echo run")
	flag.DurationVar(&cfg.Duration, "duration", 5e9, "length of each echo run (after a warm-up of a tenth of it)")
	flag.IntVar(&cfg.Sessions, "sessions", 1000, "idle sessions opened (2025-11-25)")
	flag.IntVar(&cfg.Progress, "progress", 200, "countdown calls timed to their first progress notification")
	rounds := flag.Int("rounds", 3, "rounds")
	versions := flag.String("versions", mcpbench.V20251125+","+mcpbench.V20260728, "protocol revisions")
	flag.Parse()
	var specs []mcpbench.Spec
	kinds := map[string]string{}
	for _, a := range flag.Args() {
		s, err := mcpbench.ParseSpec(a)
		if err != nil {
			fail(err)
		}
		specs, kinds[s.Name] = append(specs, s), s.Kind
	}
	if len(specs) == 0 {
		fail(fmt.Errorf("usage: mcpbench [flags] NAME=KIND:BINARY..."))
	}
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	res, err := mcpbench.Run(context.Background(), specs, strings.Split(*versions, ","), cfg, *rounds, logf)
	if err != nil {
		fail(err)
	}
	mcpbench.WriteTable(os.Stdout, res, kinds)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mcpbench:", err)
	os.Exit(1)
}
