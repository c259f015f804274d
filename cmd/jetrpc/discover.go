package main

import (
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/openrpc"
)

// demoInfo is the info object of the demo server's OpenRPC document.
var demoInfo = openrpc.Options{
	Title:       "jetrpc demo",
	Version:     "1.0.0",
	Description: "The demo methods of jetrpc serve: the JSON-RPC 2.0 specification's examples plus test helpers.",
}

// registerDemo registers the demo methods on e and enables rpc.discover,
// which describes them; the HTTP listener serves the same document at
// GET /openrpc.json.
func registerDemo(e *dispatch.Engine, cfg *serveConfig) error {
	info := demoInfo
	info.Methods = demo.Docs()
	svc, err := openrpc.Enable(e, &info)
	if err != nil {
		return err
	}
	cfg.docs = map[string]func() ([]byte, error){"/openrpc.json": svc.Document}
	cfg.policy.svc = svc // /openrpc.json of the HTTP listener's methods (--http-api)
	return demo.Register(e)
}
