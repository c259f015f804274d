package main

// NOTE: jetrpc serve --mcp (#15): an MCP server (package mcp) with the demo
// tools and the conformance suite's fixtures (#18) of package mcpdemo, at
// /mcp on the HTTP listener (Streamable HTTP) and, with --stdio, on
// stdin/stdout instead of JSON-RPC (NDJSON, one session). The replica flags
// (mcp_store.go) put the endpoint's sessions and event streams in a store
// shared with other replicas.

import (
	"context"
	"errors"
	"flag"
	"log/slog"

	"github.com/jetrpc/jetrpc/mcp"
	"github.com/jetrpc/jetrpc/mcp/mcpdemo"
	"github.com/jetrpc/jetrpc/mcp/mcphttp"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// mcpPath is where --mcp serves the Streamable HTTP endpoint.
const mcpPath = "/mcp"

// mcpFlags are the serve flags for MCP.
type mcpFlags struct {
	on      bool // --mcp
	replica mcpReplicaFlags
	auth    mcpAuthFlags // OAuth (mcp_auth.go)
}

func (m *mcpFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&m.on, "mcp", false, "serve MCP: Streamable HTTP at /mcp on the HTTP listener, and with --stdio on stdin/stdout (instead of JSON-RPC)")
	m.replica.define(fs)
	m.auth.define(fs)
}

func (m *mcpFlags) check(httpAddr string, stdio bool) error {
	if m.on && httpAddr == "" && !stdio {
		return errors.New("--mcp: needs the HTTP listener (--http ADDR) or --stdio")
	}
	if err := m.auth.check(m.on, httpAddr); err != nil {
		return err
	}
	return m.replica.check(m.on)
}

// mcpServe is the running MCP server.
type mcpServe struct {
	srv     *mcp.Server
	http    *mcphttp.Handler  // nil without --http
	stdio   *netserver.Server // nil without --stdio
	replica *mcpReplicaFlags  // the shared store, closed by shutdown
}

// newMCP makes the MCP server and mounts its endpoint in opts.Routes
// (before the HTTP server is made from opts).
func newMCP(cfg *serveConfig, log *slog.Logger, opts *netserver.Options) *mcpServe {
	if !cfg.mcp.on {
		return nil
	}
	mo := &mcp.Options{Logger: log}
	oa := &cfg.mcp.auth
	if oa.on() {
		mo.Access = mcpAccess{oa.rules} // --mcp-scope (mcp_auth.go)
	}
	m := &mcpServe{replica: &cfg.mcp.replica, srv: mcp.New(mcp.Implementation{Name: "jetrpc", Version: "0.1.0"}, mo)}
	if err := errors.Join(mcpdemo.Register(m.srv), mcpdemo.RegisterConformance(m.srv)); err != nil {
		panic(err) // fixed tools: a bug
	}
	if cfg.http != "" {
		origins := cfg.sec.origins // --allow-origin; netserver's guard also checks Host and Origin before the route
		ho := &mcphttp.Options{Logger: log,
			CheckOrigin: func(origin, host []byte) bool { return origins.Allow(string(origin), string(host)) },
			EventStore:  cfg.mcp.replica.store, SessionIDs: cfg.mcp.replica.ids,
			Identity: nethttp.RequestIdentity} // the guard's (security.go, mcp_auth.go)
		if oa.on() {
			ho.Forbidden = oa.forbidden // 403 with the step-up challenge
		}
		m.http = mcphttp.New(m.srv, ho)
		if oa.on() {
			docs := map[string]func() ([]byte, error){}
			for p, d := range opts.Documents {
				docs[p] = d
			}
			for _, p := range oa.paths { // public: guard.Options.Public (mcp_auth.go)
				docs[p] = oa.document
			}
			opts.Documents = docs
		}
		if cfg.mcp.replica.store != nil {
			log.Info("mcp: sessions in the shared store", "store", cfg.mcp.replica.url, "instance", cfg.mcp.replica.ids.Instance())
		}
		routes := map[string]fasthttp.RequestHandler{mcpPath: m.http.ServeFastHTTP}
		for p, h := range opts.Routes {
			routes[p] = h
		}
		opts.Routes = routes
	}
	if cfg.stdio {
		m.stdio = m.srv.StreamServer(opts)
	}
	return m
}

// shutdown ends the endpoint's streams and sessions and the stdio server.
func (m *mcpServe) shutdown(ctx context.Context) error {
	var err error
	if m.http != nil {
		err = m.http.Shutdown(ctx)
	}
	if m.stdio != nil {
		if serr := m.stdio.Shutdown(ctx); err == nil {
			err = serr
		}
	}
	m.srv.Close()
	if m.replica.close != nil {
		m.replica.close()
	}
	return err
}
