package peers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	"github.com/creachadair/jrpc2/jhttp"
	"github.com/creachadair/jrpc2/server"
	"github.com/ethereum/go-ethereum/rpc"
	sgrpc "github.com/sourcegraph/jsonrpc2"
	lsp "go.lsp.dev/jsonrpc2"
)

// Peer is one engine: Serve serves the demo methods on ln (NDJSON) until
// the returned stop is called.
type Peer struct {
	Name string
	// Method maps a demo method name to the name this peer serves it under.
	Method func(string) string
	// Named and Batch: whether the peer takes params by name, and batches.
	Named, Batch bool
	Serve        func(ln net.Listener) (stop func())
	// Local opens an in-process connection (see each peer for what it goes
	// through); HTTP, when not nil, returns the peer's net/http handler.
	Local func() *Local
	HTTP  func() (h http.Handler, stop func())
}

// Peers returns the peers.
func Peers() []Peer {
	same := func(m string) string { return m }
	return []Peer{
		{Name: "jrpc2", Method: same, Named: true, Batch: true, Serve: serveJRPC2, Local: localJRPC2, HTTP: httpJRPC2},
		{Name: "sourcegraph", Method: same, Named: true, Batch: false, Serve: serveSourcegraph, Local: localSourcegraph},
		{Name: "geth", Method: func(m string) string { return "demo_" + m }, Named: false, Batch: true, Serve: serveGeth,
			Local: localGeth, HTTP: httpGeth},
		{Name: "lsp", Method: same, Named: true, Batch: true, Serve: serveLSP, Local: localLSP},
	}
}

var errParams = errors.New("invalid params")

// demo answers the demo methods the way a service built on encoding/json
// does; every peer but geth (typed methods) calls it.
func demo(method string, params json.RawMessage) (any, error) {
	switch method {
	case "subtract":
		var pos []float64
		if err := json.Unmarshal(params, &pos); err == nil {
			if len(pos) != 2 {
				return nil, errParams
			}
			return pos[0] - pos[1], nil
		}
		var named struct{ Minuend, Subtrahend *float64 }
		if err := json.Unmarshal(params, &named); err != nil || named.Minuend == nil || named.Subtrahend == nil {
			return nil, errParams
		}
		return *named.Minuend - *named.Subtrahend, nil
	case "echo":
		if len(params) == 0 {
			return nil, nil
		}
		return params, nil
	case "update":
		notified.Add(1)
		return nil, nil
	case "notify_hello", "notify_sum":
		return nil, nil
	}
	return nil, errors.New("method not found")
}

func jrpc2Map() handler.Map {
	m := handler.Map{}
	for _, name := range []string{"subtract", "echo", "update"} {
		m[name] = func(_ context.Context, req *jrpc2.Request) (any, error) {
			return demo(req.Method(), json.RawMessage(req.ParamString()))
		}
	}
	return m
}

func serveJRPC2(ln net.Listener) func() {
	m := jrpc2Map()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		server.Loop(ctx, server.NetAccepter(ln, channel.Line), server.Static(m), nil)
	}()
	return func() { cancel(); ln.Close(); <-done }
}

func sgHandler() sgrpc.Handler {
	return sgrpc.HandlerWithError(func(_ context.Context, _ *sgrpc.Conn, req *sgrpc.Request) (any, error) {
		var params json.RawMessage
		if req.Params != nil {
			params = *req.Params
		}
		return demo(req.Method, params)
	})
}

// sgQuiet keeps sourcegraph/jsonrpc2 from logging "protocol error" when a
// connection closes (its default logger writes into the benchmark output).
var sgQuiet = sgrpc.SetLogger(log.New(io.Discard, "", 0))

func serveSourcegraph(ln net.Listener) func() {
	h := sgHandler()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// PlainObjectCodec reads a stream of JSON values and writes each
			// response followed by a newline: NDJSON both ways.
			sgrpc.NewConn(ctx, sgrpc.NewPlainObjectStream(c), h, sgQuiet)
		}
	}()
	return func() { cancel(); ln.Close(); <-done }
}

// gethDemo is the demo service as go-ethereum wants it: typed methods,
// served as demo_subtract, demo_echo, demo_update.
type gethDemo struct{}

func (gethDemo) Subtract(a, b float64) float64          { return a - b }
func (gethDemo) Echo(v json.RawMessage) json.RawMessage { return v }
func (gethDemo) Update(a, b, c, d, e *json.RawMessage)  { notified.Add(1) }
func (gethDemo) Sum(xs ...float64) (s float64)          { return sumOf(xs) }
func sumOf(xs []float64) (s float64) {
	for _, x := range xs {
		s += x
	}
	return s
}

func gethServer() *rpc.Server {
	srv := rpc.NewServer()
	if err := srv.RegisterName("demo", gethDemo{}); err != nil {
		panic(err)
	}
	return srv
}

func serveGeth(ln net.Listener) func() {
	srv := gethServer()
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.ServeListener(ln)
	}()
	return func() { ln.Close(); srv.Stop(); <-done }
}

// Rename returns msg with every "method":"m" replaced by the peer's name.
func (p *Peer) Rename(msg string) string {
	for _, m := range []string{"subtract", "echo", "update"} {
		msg = strings.ReplaceAll(msg, `"method":"`+m+`"`, `"method":"`+p.Method(m)+`"`)
	}
	return msg
}

// notified counts the update notifications the peers' handlers have run, so
// that an in-process benchmark can wait for the asynchronous ones to finish.
var notified atomic.Int64

// Local is an in-process connection to one engine's server.
type Local struct {
	// Do sends one message and, when answer is set, returns its answer
	// (valid until the next Do).
	Do func(msg []byte, answer bool) ([]byte, error)
	// Flush waits until every notification sent has been handled.
	Flush func()
	Close func()
}

// pipeLocal is a Local over a client end that speaks NDJSON: msg and a
// newline written, the answer read up to its newline.
func pipeLocal(send func([]byte) error, recv func() ([]byte, error), closeFn func()) *Local {
	base := notified.Load()
	var sent int64
	buf := make([]byte, 0, 4096)
	return &Local{
		Do: func(msg []byte, answer bool) ([]byte, error) {
			buf = append(append(buf[:0], msg...), '\n')
			if err := send(buf); err != nil {
				return nil, err
			}
			if !answer {
				sent++
				return nil, nil
			}
			return recv()
		},
		Flush: func() {
			for notified.Load() < base+sent {
				runtime.Gosched()
			}
		},
		Close: closeFn,
	}
}

// netPipeLocal serves one end of a net.Pipe with serve and returns a Local
// over the other end.
func netPipeLocal(serve func(server net.Conn)) *Local {
	cli, srv := net.Pipe()
	done := make(chan struct{})
	go func() { defer close(done); serve(srv) }()
	r := bufio.NewReaderSize(cli, 64<<10)
	return pipeLocal(func(b []byte) error { _, err := cli.Write(b); return err },
		func() ([]byte, error) { return r.ReadSlice('\n') },
		func() { cli.Close(); srv.Close(); <-done })
}

// localJRPC2: a jrpc2.Server on channel.Direct (two unbuffered Go channels
// of whole messages, jrpc2's in-memory channel); the benchmark writes the raw
// request bytes on the client end and reads the raw answer, so no jrpc2
// client work is counted.
func localJRPC2() *Local {
	cli, srvCh := channel.Direct()
	srv := jrpc2.NewServer(jrpc2Map(), nil).Start(srvCh)
	return pipeLocal(func(b []byte) error { return cli.Send(b[:len(b)-1]) }, cli.Recv,
		func() { cli.Close(); srv.Stop() })
}

// localSourcegraph: sourcegraph/jsonrpc2 has no in-memory transport, so a
// Conn with PlainObjectStream serves one end of a net.Pipe (synchronous, no
// syscalls).
func localSourcegraph() *Local {
	return netPipeLocal(func(c net.Conn) {
		conn := sgrpc.NewConn(context.Background(), sgrpc.NewPlainObjectStream(c), sgHandler(), sgQuiet)
		<-conn.DisconnectNotify()
	})
}

// localGeth: ServeCodec(NewCodec) on one end of a net.Pipe, which is what
// go-ethereum's own rpc.DialInProc does (without its client).
func localGeth() *Local {
	srv := gethServer()
	l := netPipeLocal(func(c net.Conn) { srv.ServeCodec(rpc.NewCodec(c), 0) })
	closeFn := l.Close
	l.Close = func() { closeFn(); srv.Stop() }
	return l
}

// httpGeth: rpc.Server is itself an http.Handler.
func httpGeth() (http.Handler, func()) {
	srv := gethServer()
	return srv, srv.Stop
}

// httpJRPC2: jhttp.Bridge, jrpc2's HTTP bridge, over the same handlers.
func httpJRPC2() (http.Handler, func()) {
	b := jhttp.NewBridge(jrpc2Map(), nil)
	return b, func() { b.Close() }
}

// lspHandler serves the demo methods for go.lsp.dev/jsonrpc2 (handlers run
// inline on the connection's read goroutine, its default).
func lspHandler(_ context.Context, req *lsp.Request) (any, error) {
	return demo(req.Method(), json.RawMessage(req.Params()))
}

// serveLSP: go.lsp.dev/jsonrpc2 Conns with NDJSON framing (NewNDJSONStream),
// one per accepted connection.
func serveLSP(ln net.Listener) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var conns []lsp.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conn := lsp.NewConn(lsp.NewNDJSONStream(c))
			conn.Go(ctx, lspHandler)
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	return func() {
		ln.Close()
		<-done
		cancel()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}
}

// localLSP: a go.lsp.dev/jsonrpc2 Conn on NewChannelStreamPair (its
// in-memory transport: pooled frames over Go channels); the benchmark writes
// and reads raw frames on the other end.
func localLSP() *Local {
	type frames interface {
		WriteFrame(context.Context, []byte) (int64, error)
		ReadFrame(context.Context) ([]byte, int64, error)
	}
	left, right := lsp.NewChannelStreamPair(1)
	conn := lsp.NewConn(right)
	conn.Go(context.Background(), lspHandler)
	cli := left.(frames)
	ctx := context.Background()
	return pipeLocal(func(b []byte) error { _, err := cli.WriteFrame(ctx, b[:len(b)-1]); return err },
		func() ([]byte, error) { f, _, err := cli.ReadFrame(ctx); return f, err },
		func() { left.Close(); conn.Close() })
}
