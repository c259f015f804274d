package compare

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
	"github.com/jetrpc/jetrpc/netserver/nethttp"
	"github.com/valyala/fasthttp"
)

// startServers starts, on loopback, jetrpc (the demo methods, one server
// per registration of cfg.Methods), in a GOEXPERIMENT=jsonv2 build the
// encoding/json/v2 baseline (BaselineV2), and the encoding/json baseline
// (bench.Stdlib, "baseline", last) for cfg's transport and framing, or names
// cfg.Target. stop shuts the servers down.
//
// The baseline runs on the same kind of loop as jetrpc: over NDJSON
// bench.LineServer (read every buffered line, answer each into one buffer,
// write when the input runs dry), over the other framings the same loop
// with frame, over HTTP a fasthttp server with jetrpc's default
// timeouts, over WebSocket bench.WSServer (the same websocket package as
// jetrpc's /ws, one message read, answered and written at a time). So the
// comparison is of the JSON-RPC work, not of the network code.
func startServers(cfg *Config) (servers []server, stop func(), err error) {
	if cfg.Target != "" {
		return []server{{name: "target", addr: cfg.Target}}, func() {}, nil
	}
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	type start struct {
		name  string
		start func(*Config, net.Listener) (stop func(), err error)
	}
	var starts []start
	methods := cfg.Methods
	if len(methods) == 0 {
		methods = []demo.Mode{demo.Inline}
	}
	for _, m := range methods {
		starts = append(starts, start{ServerName(m), func(cfg *Config, ln net.Listener) (func(), error) {
			return startJetrpc(cfg, m, ln)
		}})
	}
	if v2 := bench.NewStdlibV2(); v2 != nil { // a GOEXPERIMENT=jsonv2 build
		starts = append(starts, start{BaselineV2, func(cfg *Config, ln net.Listener) (func(), error) {
			return startBaseline(cfg, ln, v2)
		}})
	}
	starts = append(starts, start{"baseline", func(cfg *Config, ln net.Listener) (func(), error) {
		return startBaseline(cfg, ln, bench.NewStdlib())
	}})
	for _, s := range starts {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			stop()
			return nil, nil, err
		}
		stopOne, err := s.start(cfg, ln)
		if err != nil {
			ln.Close()
			stop()
			return nil, nil, err
		}
		stops = append(stops, stopOne)
		servers = append(servers, server{name: s.name, addr: ln.Addr().String(), inProcess: true})
	}
	return servers, stop, nil
}

// startJetrpc serves the demo methods, registered the way m says, on ln:
// netserver.New over TCP, nethttp.New over HTTP and WebSocket (GET
// /ws). Nothing is logged.
func startJetrpc(cfg *Config, m demo.Mode, ln net.Listener) (stop func(), err error) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	if err := demo.RegisterAs(e, m); err != nil {
		e.Close()
		return nil, err
	}
	opts := &netserver.Options{Framing: cfg.Framing, Logger: quiet}
	var shutdown func(context.Context) error
	if cfg.Transport == load.HTTP || cfg.Transport == load.WS {
		srv := nethttp.New(e, opts)
		go srv.Serve(ln)
		shutdown = srv.Shutdown
	} else {
		srv := netserver.New(e, opts)
		go srv.Serve(ln)
		shutdown = srv.Shutdown
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shutdown(ctx)
		e.Close()
	}, nil
}

// startBaseline serves the baseline std on ln, on the loop that matches
// jetrpc's for cfg's transport.
func startBaseline(cfg *Config, ln net.Listener, std bench.Baseline) (stop func(), err error) {
	switch cfg.Transport {
	case load.HTTP:
		srv := &fasthttp.Server{
			Handler:      bench.StdlibHTTP(std),
			ReadTimeout:  netserver.DefaultReadTimeout,
			WriteTimeout: netserver.DefaultWriteTimeout,
			IdleTimeout:  netserver.DefaultIdleTimeout,
		}
		go srv.Serve(ln)
		return func() { srv.Shutdown() }, nil
	case load.WS:
		srv := &bench.WSServer{Handle: bench.StdlibLine(std)}
		go srv.Serve(ln)
		return func() { srv.Close() }, nil
	default:
		srv := &bench.LineServer{Handle: bench.StdlibLine(std), Framing: cfg.Framing}
		go srv.Serve(ln)
		return func() { srv.Close() }, nil
	}
}
