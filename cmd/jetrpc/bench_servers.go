package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/frame"
	"github.com/valyala/fasthttp"
)

// startBenchServers starts, on loopback, jetrpc (the demo methods) and the
// encoding/json baseline (bench.Stdlib) for cfg's transport and framing, or
// names cfg.target. stop shuts the servers down.
//
// The baseline runs on the same kind of loop as jetrpc: over NDJSON
// bench.LineServer (read every buffered line, answer each into one buffer,
// write when the input runs dry), over the other framings the same loop
// with netserver/frame, over HTTP a fasthttp server with jetrpc's default
// timeouts. So the comparison is of the JSON-RPC work, not of the network
// code.
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
	if cfg.transport == "http" {
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
	switch {
	case cfg.transport == "http":
		srv := &fasthttp.Server{
			Handler:      stdlibHTTP(std),
			ReadTimeout:  netserver.DefaultReadTimeout,
			WriteTimeout: netserver.DefaultWriteTimeout,
			IdleTimeout:  netserver.DefaultIdleTimeout,
		}
		go srv.Serve(ln)
		stops = append(stops, func() { srv.Shutdown() })
	case cfg.framing == frame.NDJSON:
		srv := &bench.LineServer{Handle: bench.StdlibLine(std)}
		go srv.Serve(ln)
		stops = append(stops, func() { srv.Close() })
	default:
		srv := &framedServer{kind: cfg.framing, std: std, ln: ln, conns: map[net.Conn]struct{}{}}
		go srv.serve()
		stops = append(stops, srv.close)
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

// framedServer is bench.LineServer's loop for the header and len32
// framings: the baseline for those.
type framedServer struct {
	kind  frame.Kind
	std   *bench.Stdlib
	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func (s *framedServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(c)
	}
}

func (s *framedServer) serveConn(c net.Conn) {
	defer func() {
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.wg.Done()
	}()
	r := frame.NewReader(c, s.kind, 0)
	var out []byte
	for {
		msg, err := r.Next()
		if err != nil {
			return
		}
		if resp := s.std.Process(msg); resp != nil {
			out = frame.AppendFrame(out, s.kind, resp)
		}
		if !r.Ready() && len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return
			}
			out = out[:0]
		}
	}
}

func (s *framedServer) close() {
	s.mu.Lock()
	s.ln.Close()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}
