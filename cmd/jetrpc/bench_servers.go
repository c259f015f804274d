package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/load"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/valyala/fasthttp"
)

// startBenchServers starts, on loopback, jetrpc (the demo methods) and the
// encoding/json baseline (bench.Stdlib) for cfg's transport and framing, or
// names cfg.target. stop shuts the servers down.
//
// The baseline runs on the same kind of loop as jetrpc: over NDJSON
// bench.LineServer (read every buffered line, answer each into one buffer,
// write when the input runs dry), over the other framings the same loop
// with frame, over HTTP a fasthttp server with jetrpc's default
// timeouts, over WebSocket bench.WSServer (the same websocket package as
// jetrpc's /ws, one message read, answered and written at a time). So the
// comparison is of the JSON-RPC work, not of the network code.
func startBenchServers(cfg *benchConfig) (servers []benchServer, stop func(), err error) {
	if cfg.target != "" {
		return []benchServer{{name: "target", addr: cfg.target}}, func() {}, nil
	}
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	listen := func(name string) (net.Listener, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err == nil {
			servers = append(servers, benchServer{name: name, addr: ln.Addr().String(), inProcess: true})
		}
		return ln, err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	stops = append(stops, e.Close)
	if err := demo.Register(e); err != nil {
		stop()
		return nil, nil, err
	}
	opts := &netserver.Options{Framing: cfg.framing, Logger: quiet}
	ln, err := listen("jetrpc")
	if err != nil {
		stop()
		return nil, nil, err
	}
	shutdown := func(f func(context.Context) error) func() {
		return func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			f(ctx)
		}
	}
	if cfg.transport == load.HTTP || cfg.transport == load.WS { // GET /ws is WebSocket
		srv := netserver.NewHTTP(e, opts)
		go srv.Serve(ln)
		stops = append(stops, shutdown(srv.Shutdown))
	} else {
		srv := netserver.New(e, opts)
		go srv.Serve(ln)
		stops = append(stops, shutdown(srv.Shutdown))
	}
	if ln, err = listen("baseline"); err != nil {
		stop()
		return nil, nil, err
	}
	std := bench.NewStdlib()
	switch cfg.transport {
	case load.HTTP:
		srv := &fasthttp.Server{
			Handler:      stdlibHTTP(std),
			ReadTimeout:  netserver.DefaultReadTimeout,
			WriteTimeout: netserver.DefaultWriteTimeout,
			IdleTimeout:  netserver.DefaultIdleTimeout,
		}
		go srv.Serve(ln)
		stops = append(stops, func() { srv.Shutdown() })
	case load.WS:
		srv := &bench.WSServer{Handle: bench.StdlibLine(std)}
		go srv.Serve(ln)
		stops = append(stops, func() { srv.Close() })
	default:
		srv := &bench.LineServer{Handle: bench.StdlibLine(std), Framing: cfg.framing}
		go srv.Serve(ln)
		stops = append(stops, func() { srv.Close() })
	}
	return servers, stop, nil
}

// stdlibHTTP answers a POST with the baseline: 200 and the response, or
// 204 when none is due.
func stdlibHTTP(std *bench.Stdlib) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if !ctx.IsPost() {
			ctx.SetStatusCode(fasthttp.StatusMethodNotAllowed)
			return
		}
		out := std.Process(ctx.PostBody())
		if out == nil {
			ctx.SetStatusCode(fasthttp.StatusNoContent)
			return
		}
		ctx.SetContentType("application/json")
		ctx.SetBody(out)
	}
}
