package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// serveDemo serves the demo methods over TCP and HTTP on loopback ports for
// the examples; stop shuts both down.
func serveDemo() (tcpAddr, httpURL string, stop func()) {
	e := dispatch.New(&dispatch.Options{Logger: quiet})
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	s := netserver.New(e, &netserver.Options{Logger: quiet})
	h := nethttp.New(e, &netserver.Options{Logger: quiet})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go s.Serve(ln)
	go h.Serve(hl)
	return ln.Addr().String(), "http://" + hl.Addr().String(), func() {
		s.Shutdown(context.Background())
		h.Shutdown(context.Background())
		e.Close()
	}
}

// Call a server over TCP with Content-Length framing: a typed call, a raw
// call and a JSON-RPC error.
func ExampleDial() {
	addr, _, stop := serveDemo()
	defer stop()
	ctx := context.Background()

	c, err := client.Dial(ctx, "tcp", addr, &client.Options{Framing: frame.Header})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	var diff int
	if err := c.Call(ctx, "subtract", map[string]int{"minuend": 42, "subtrahend": 23}, &diff); err != nil {
		panic(err)
	}
	fmt.Println("subtract:", diff)

	raw, err := c.CallRaw(ctx, nil, "get_data", nil)
	fmt.Printf("get_data: %s %v\n", raw, err)

	err = c.Call(ctx, "fail", map[string]any{"code": 7, "message": "no luck", "data": "why"}, nil)
	var rpcErr *encode.Error
	if errors.As(err, &rpcErr) {
		fmt.Printf("fail: code %d, message %q, data %s\n", rpcErr.Code, rpcErr.Message, rpcErr.Data)
	}
	// Output:
	// subtract: 19
	// get_data: ["hello",5] <nil>
	// fail: code 7, message "no luck", data "why"
}

// Call a server over HTTP: one POST per call, notification or batch.
func ExampleDialHTTP() {
	_, url, stop := serveDemo()
	defer stop()
	ctx := context.Background()

	c, err := client.DialHTTP(url, nil)
	if err != nil {
		panic(err)
	}
	defer c.Close()

	var sum int
	err = c.Call(ctx, "sum", []int{1, 2, 3}, &sum)
	fmt.Println(sum, err)
	fmt.Println(c.Notify(ctx, "update", []int{1}))
	// Output:
	// 6 <nil>
	// <nil>
}

// A batch of calls and notifications, sent once; each call gets its own
// result or error.
func ExampleBatch() {
	addr, _, stop := serveDemo()
	defer stop()
	ctx := context.Background()
	c, err := client.Dial(ctx, "tcp", addr, nil)
	if err != nil {
		panic(err)
	}
	defer c.Close()

	b := c.NewBatch()
	var diff int
	var data []any
	sub := b.Call("subtract", []int{42, 23}, &diff)
	b.Notify("update", []int{1, 2, 3})
	get := b.Call("get_data", nil, &data)
	bad := b.Call("no_such_method", nil, nil)
	if err := b.Send(ctx); err != nil {
		panic(err)
	}
	fmt.Println(diff, sub.Err())
	fmt.Println(data, get.Err())
	fmt.Println(bad.Err())
	// Output:
	// 19 <nil>
	// [hello 5] <nil>
	// jsonrpc: code -32601: Method not found
}

// CallRaw appends the raw result to a buffer the caller reuses: no
// allocation per call in steady state.
func ExampleClient_CallRaw() {
	addr, _, stop := serveDemo()
	defer stop()
	ctx := context.Background()
	c, err := client.Dial(ctx, "tcp", addr, nil)
	if err != nil {
		panic(err)
	}
	defer c.Close()

	buf := make([]byte, 0, 256)
	for _, params := range []string{`[1,2]`, `[10,20,30]`} {
		buf, err = c.CallRaw(ctx, buf[:0], "sum", []byte(params))
		fmt.Printf("%s %v\n", buf, err)
	}
	// Output:
	// 3 <nil>
	// 60 <nil>
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}

// Read a result far larger than the client's MaxMessage into an
// io.Writer as it arrives: the demo's blob streams 10 MB; the client
// holds none of it.
func ExampleClient_CallTo() {
	addr, _, stop := serveDemo()
	defer stop()
	ctx := context.Background()
	c, err := client.Dial(ctx, "tcp", addr, &client.Options{MaxMessage: 64 << 10})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	var w countingWriter
	err = c.CallTo(ctx, &w, "blob", []byte(`[10000000]`))
	fmt.Println(w.n, err) // the string's quotes and its 10,000,000 bytes
	// Output:
	// 10000002 <nil>
}

// The same over HTTP: the body is read as it arrives (gzip-coded here,
// inflated on the fly), on a client whose MaxMessage is 64 KiB.
func ExampleClient_CallTo_http() {
	_, url, stop := serveDemo()
	defer stop()
	c, err := client.DialHTTP(url, &client.Options{MaxMessage: 64 << 10})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	var w countingWriter
	err = c.CallTo(context.Background(), &w, "blob", []byte(`[10000000]`))
	fmt.Println(w.n, err)
	// Output:
	// 10000002 <nil>
}
