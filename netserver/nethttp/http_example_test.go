package nethttp_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver/nethttp"
)

// Handler mounts an engine in any net/http server.
func ExampleHandler() {
	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(nethttp.Handler(e, nil))
	defer srv.Close()

	post := func(msg string) {
		resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(msg))
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%d %s", resp.StatusCode, body)))
	}
	post(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`)
	post(`{"jsonrpc":"2.0","method":"update","params":[1,2,3]}`) // a notification
	post(`{"jsonrpc":"2.0","method":"nope","id":2}`)
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":19}
	// 204
	// 200 {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}
}

// New serves JSON-RPC over HTTP with fasthttp (and WebSocket at /ws,
// the health endpoints at /healthz and /readyz) on a listener of its own.
func ExampleNew() {
	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	s := nethttp.New(e, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(context.Background())

	url := "http://" + ln.Addr().String()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"get_data","id":1}`))
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body))
	if resp, err = http.Get(url + "/readyz"); err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":["hello",5]}
	// 200
}
