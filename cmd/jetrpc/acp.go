package main

// NOTE: jetrpc serve --stdio --acp (#21): the demo ACP agent (package
// acpdemo on package acp) on stdin/stdout instead of JSON-RPC's demo
// methods, with its own engine and stdio server; --tcp and --http, when
// given, still serve the JSON-RPC demo. ACP lines are NDJSON only and up to
// acp.DefaultMaxMessage (32 MiB) unless --max-message is given.

import (
	"errors"
	"flag"
	"log/slog"

	"github.com/jetrpc/jetrpc/acp"
	"github.com/jetrpc/jetrpc/acp/acpdemo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// acpFlags are the serve flags for ACP.
type acpFlags struct {
	on bool // --acp
	// what the limits flags left to ACP's defaults
	maxMessage, maxPending bool
}

func (a *acpFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&a.on, "acp", false, "with --stdio: serve the demo ACP agent (protocol version 1) on stdin/stdout instead of JSON-RPC; "+
		"lines up to 32 MiB unless --max-message is given")
}

func (a *acpFlags) check(given map[string]bool, stdio bool) error {
	switch {
	case !a.on:
		return nil
	case !stdio:
		return errors.New("--acp: needs --stdio (an ACP agent talks over its stdin and stdout)")
	case given["mcp"]:
		return errors.New("--acp: stdin/stdout serve either ACP or MCP, not both")
	}
	a.maxMessage, a.maxPending = !given["max-message"], !given["max-pending"]
	return nil
}

// newACP returns the stdio server of the demo agent, with opts (the serve
// flags' server options) adapted to ACP by acp.Server.StreamServer: the
// limits the flags left at their defaults take ACP's.
func newACP(cfg *serveConfig, log *slog.Logger, eo dispatch.Options, opts *netserver.Options) (*netserver.Server, *dispatch.Engine) {
	eo.Codes = acp.EngineCodes() // the engine's conditions with ACP's codes (docs/errors.md)
	e := dispatch.New(cfg.limits.engineOptions(eo))
	srv := acp.NewServer(acpdemo.New("0.1.0"), &acp.Options{Logger: log})
	if err := srv.Register(e); err != nil {
		panic(err) // fixed methods: a bug
	}
	o := *opts
	if cfg.acp.maxMessage {
		o.MaxMessage = 0 // acp.DefaultMaxMessage
	}
	if cfg.acp.maxPending {
		o.MaxPending = 0 // room for one whole message beside the default bound
	}
	return srv.StreamServer(e, &o), e
}
