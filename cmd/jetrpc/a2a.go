package main

// NOTE: jetrpc serve --a2a (#21): an A2A agent (package a2a) with the demo
// agent echo of package a2ademo, its JSON-RPC endpoint at /a2a on the HTTP
// listener (A2A 1.0 and 0.3, chosen by the A2A-Version header) and its
// card at /.well-known/agent-card.json and /a2a/.well-known/agent-card.json.

import (
	"context"
	"errors"
	"flag"
	"log/slog"

	"github.com/jetrpc/jetrpc/a2a"
	"github.com/jetrpc/jetrpc/a2a/a2ademo"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/valyala/fasthttp"
)

// The paths of --a2a.
const (
	a2aPath      = "/a2a"
	a2aCardPath  = "/.well-known/agent-card.json"
	a2aCardPath2 = "/a2a/.well-known/agent-card.json"
)

// a2aFlags are the serve flags for A2A.
type a2aFlags struct {
	on bool // --a2a
}

func (a *a2aFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&a.on, "a2a", false, "serve an A2A agent (1.0 and 0.3) at POST /a2a on the HTTP listener, its card at /.well-known/agent-card.json, with the demo agent echo")
}

func (a *a2aFlags) check(httpAddr string) error {
	if a.on && httpAddr == "" {
		return errors.New("--a2a: needs the HTTP listener (--http ADDR)")
	}
	return nil
}

// newA2A makes the A2A server and mounts its endpoint and card in
// opts.Routes (before the HTTP server is made from opts).
func newA2A(cfg *serveConfig, log *slog.Logger, opts *netserver.Options) *a2a.Server {
	if !cfg.a2a.on {
		return nil
	}
	s := a2a.New(a2ademo.Card(), a2ademo.Echo(nil), &a2a.Options{Logger: log})
	routes := map[string]fasthttp.RequestHandler{a2aPath: s.ServeFastHTTP, a2aCardPath: s.ServeCard, a2aCardPath2: s.ServeCard}
	for p, h := range opts.Routes {
		routes[p] = h
	}
	opts.Routes = routes
	return s
}

// a2aShutdown ends the A2A server's streams and tasks.
func a2aShutdown(s *a2a.Server) func(context.Context) error {
	return func(context.Context) error {
		s.Close()
		return nil
	}
}
