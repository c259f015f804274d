package main

// NOTE: jetrpc serve --a2a (#21): an A2A agent (package a2a) with the demo
// agent echo of package a2ademo, its JSON-RPC endpoint at /a2a on the HTTP
// listener (A2A 1.0 and 0.3, chosen by the A2A-Version header) and its
// card at /.well-known/agent-card.json and /a2a/.well-known/agent-card.json.
//
// --a2a-store nats://... shares the tasks' events and states between
// replicas, so that a client resumes a stream (Last-Event-ID) and reads a
// task on any of them (package a2a's replica.go). It is a flag of its own,
// not --mcp-store: an A2A replica needs neither --mcp nor --mcp-key (it
// signs no session ids), and its JetStream stream and bucket are its own
// (A2A_EVENTS, A2A_TASKS, subjects a2a.ev.>), so that the two protocols'
// retention and purges stay apart; both flags may name the same servers.
// --a2a-allow-private-webhooks lifts the SSRF guard of push webhooks.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/a2a"
	"github.com/jetrpc/jetrpc/a2a/a2ademo"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/streamstore"
	"github.com/jetrpc/jetrpc/streamstore/natsstore"
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
	on           bool   // --a2a
	storeURL     string // --a2a-store
	allowPrivate bool   // --a2a-allow-private-webhooks

	store *natsstore.Store // nil: a MemoryStore of the server's own
}

func (a *a2aFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&a.on, "a2a", false, "serve an A2A agent (1.0 and 0.3) at POST /a2a on the HTTP listener, its card at /.well-known/agent-card.json, with the demo agent echo")
	fs.StringVar(&a.storeURL, "a2a-store", "memory", "where A2A tasks' events and states are kept: memory (this process), or\n"+
		"nats://HOST:PORT[,nats://...] (NATS JetStream, shared by the replicas: a task is read and resumed on any of them)")
	fs.BoolVar(&a.allowPrivate, "a2a-allow-private-webhooks", false, "let A2A push notification webhooks be on loopback, private, link-local, multicast or\n"+
		"unspecified addresses (refused by default, when the config is set and when they are dialled, against SSRF)")
}

func (a *a2aFlags) check(httpAddr string) error {
	if a.on && httpAddr == "" {
		return errors.New("--a2a: needs the HTTP listener (--http ADDR)")
	}
	shared := a.storeURL != "" && a.storeURL != "memory"
	if shared && !strings.HasPrefix(a.storeURL, "nats://") && !strings.HasPrefix(a.storeURL, "tls://") {
		return fmt.Errorf("--a2a-store %s: memory, or nats://HOST:PORT", a.storeURL)
	}
	if !a.on || !shared {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := natsstore.Connect(ctx, a.storeURL, &natsstore.Options{Stream: "A2A_EVENTS", Bucket: "A2A_TASKS", Prefix: "a2a"})
	if err != nil {
		return fmt.Errorf("--a2a-store %s: %v", a.storeURL, err)
	}
	a.store = st
	return nil
}

// a2aStores are the shared stores of the servers, closed by a2aShutdown.
var a2aStores sync.Map // *a2a.Server -> *natsstore.Store

// newA2A makes the A2A server and mounts its endpoint and card in
// opts.Routes (before the HTTP server is made from opts).
func newA2A(cfg *serveConfig, log *slog.Logger, opts *netserver.Options) *a2a.Server {
	if !cfg.a2a.on {
		return nil
	}
	o := &a2a.Options{Logger: log, AllowPrivateWebhooks: cfg.a2a.allowPrivate}
	if st := cfg.a2a.store; st != nil {
		o.Events = streamstore.Store(st)
	}
	s := a2a.New(a2ademo.Card(), a2ademo.Echo(nil), o)
	if cfg.a2a.store != nil {
		a2aStores.Store(s, cfg.a2a.store)
	}
	endpoint := s.ServeFastHTTP
	if cfg.mcp.auth.on() {
		endpoint = a2aScoped(endpoint, &cfg.mcp.auth) // a2a_auth.go
	}
	routes := map[string]fasthttp.RequestHandler{a2aPath: endpoint, a2aCardPath: s.ServeCard, a2aCardPath2: s.ServeCard}
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
		if st, ok := a2aStores.LoadAndDelete(s); ok {
			st.(*natsstore.Store).Close()
		}
		return nil
	}
}
