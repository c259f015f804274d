package peers

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	"github.com/creachadair/jrpc2/server"
	"github.com/ethereum/go-ethereum/rpc"
	sgrpc "github.com/sourcegraph/jsonrpc2"
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
}

// Peers returns the peers.
func Peers() []Peer {
	same := func(m string) string { return m }
	return []Peer{
		{Name: "jrpc2", Method: same, Named: true, Batch: true, Serve: serveJRPC2},
		{Name: "sourcegraph", Method: same, Named: true, Batch: false, Serve: serveSourcegraph},
		{Name: "geth", Method: func(m string) string { return "demo_" + m }, Named: false, Batch: true, Serve: serveGeth},
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
	case "update", "notify_hello", "notify_sum":
		return nil, nil
	}
	return nil, errors.New("method not found")
}

func serveJRPC2(ln net.Listener) func() {
	m := handler.Map{}
	for _, name := range []string{"subtract", "echo", "update"} {
		m[name] = func(_ context.Context, req *jrpc2.Request) (any, error) {
			return demo(req.Method(), json.RawMessage(req.ParamString()))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		server.Loop(ctx, server.NetAccepter(ln, channel.Line), server.Static(m), nil)
	}()
	return func() { cancel(); ln.Close(); <-done }
}

func serveSourcegraph(ln net.Listener) func() {
	h := sgrpc.HandlerWithError(func(_ context.Context, _ *sgrpc.Conn, req *sgrpc.Request) (any, error) {
		var params json.RawMessage
		if req.Params != nil {
			params = *req.Params
		}
		return demo(req.Method, params)
	})
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
			sgrpc.NewConn(ctx, sgrpc.NewPlainObjectStream(c), h)
		}
	}()
	return func() { cancel(); ln.Close(); <-done }
}

// gethDemo is the demo service as go-ethereum wants it: typed methods,
// served as demo_subtract, demo_echo, demo_update.
type gethDemo struct{}

func (gethDemo) Subtract(a, b float64) float64          { return a - b }
func (gethDemo) Echo(v json.RawMessage) json.RawMessage { return v }
func (gethDemo) Update(a, b, c, d, e *json.RawMessage)  {}
func (gethDemo) Sum(xs ...float64) (s float64)          { return sumOf(xs) }
func sumOf(xs []float64) (s float64) {
	for _, x := range xs {
		s += x
	}
	return s
}

func serveGeth(ln net.Listener) func() {
	srv := rpc.NewServer()
	if err := srv.RegisterName("demo", gethDemo{}); err != nil {
		panic(err)
	}
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
