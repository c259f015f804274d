package main

// NOTE: "jetrpc ui": the web console (package ui) for any JSON-RPC server.
// It serves the page and relays the page's calls to TARGET until a signal.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/guard"
	"github.com/jetrpc/jetrpc/ui"
)

const uiUsage = `Usage: jetrpc ui [--listen ADDR] [--openrpc FILE] TARGET

Serves the web console at http://ADDR/ (and /ui/) for the JSON-RPC server at
TARGET, jetrpc or not, and relays the page's calls to it. TARGET is one of

  http://HOST:PORT/PATH, https://...   each call is a POST
  ws://HOST:PORT/PATH, wss://...       a WebSocket
  tcp://HOST:PORT                      raw TCP, NDJSON (?framing=header or len32)

The page's calls over HTTP share one connection to a ws or tcp target; over
the page's WebSocket (transport "ws") the page gets a target connection of
its own, so notifications and calls from the target reach it. The methods
come from --openrpc FILE, else from the target's rpc.discover.

It prints "listening ui ADDR" on stderr; SIGINT or SIGTERM stops it.

Flags:
`

// runUI runs "jetrpc ui".
func runUI(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("jetrpc ui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8090", "serve the console on `ADDR` (port 0 picks a free one)")
	docFile := fs.String("openrpc", "", "the OpenRPC document of TARGET, from `FILE` (default: its rpc.discover)")
	hosts := fs.String("allow-host", "", "Host headers to answer besides localhost and IP literals, comma-separated (`LIST`; * for any)")
	timeout := fs.Duration("timeout", time.Minute, "bound on each relayed call (`DURATION`)")
	fs.Usage = func() {
		fmt.Fprint(stderr, uiUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "jetrpc ui: want one TARGET\nRun \"jetrpc ui -h\" for usage.")
		return 2
	}
	opts := &ui.ServerOptions{Proxy: ui.ProxyOptions{Timeout: *timeout, Logger: slog.New(slog.NewTextHandler(stderr, nil))}}
	var err error
	if opts.Hosts, err = guard.ParseHostPolicy(*hosts); err != nil {
		fmt.Fprintf(stderr, "jetrpc ui: --allow-host: %v\n", err)
		return 2
	}
	if *docFile != "" {
		doc, err := os.ReadFile(*docFile)
		if err == nil && !json.Valid(doc) {
			err = errors.New("not JSON")
		}
		if err != nil {
			fmt.Fprintf(stderr, "jetrpc ui: --openrpc %s: %v\n", *docFile, err)
			return 1
		}
		opts.Document = func() ([]byte, error) { return doc, nil }
	}
	srv, err := ui.NewServer(fs.Arg(0), opts)
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc ui:", err)
		return 2
	}
	defer srv.Close()
	ln, err := netserver.Listen(ctx, *listen, nil)
	if err != nil {
		fmt.Fprintln(stderr, "jetrpc ui: --listen:", err)
		return 1
	}
	fmt.Fprintf(stderr, "listening ui %s\n", ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-done:
		fmt.Fprintln(stderr, "jetrpc ui:", err)
		return 1
	}
	srv.Close() // the relays first: Shutdown does not wait for WebSockets
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	return 0
}
