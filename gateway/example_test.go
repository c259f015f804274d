package gateway_test

import (
	"context"
	"fmt"
	"net"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/gateway"
	"github.com/jetrpc/jetrpc/netserver"
)

// Example forwards calls to an upstream JSON-RPC server: the gateway is the
// Forward of an Engine, which netserver (or nethttp) serves as any other.
// The answer carries the client's id byte for byte.
func Example() {
	// An upstream: jetrpc's demo server on a loopback port.
	up := dispatch.New(nil)
	defer up.Close()
	if err := demo.Register(up); err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := netserver.New(up, nil)
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())

	// The gateway: one group (a pool over one client), the default.
	c, err := client.Dial(context.Background(), "tcp", ln.Addr().String(), nil)
	if err != nil {
		panic(err)
	}
	pool, err := client.NewPool([]*client.Client{c}, &client.PoolOptions{
		Retry: &client.RetryPolicy{Idempotent: []string{"get_*", "subtract"}}})
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	gw, err := gateway.New(&gateway.Options{
		Default: &gateway.Group{Name: "default", Pool: pool},
		Routes:  []gateway.Route{{Match: "admin_"}}, // refused: -32601
	})
	if err != nil {
		panic(err)
	}
	e := dispatch.New(&dispatch.Options{Forward: gw})
	defer e.Close()

	fmt.Println(string(e.Process(nil, []byte(`{"jsonrpc":"2.0","id":9007199254740993,"method":"subtract","params":[42,23]}`))))
	fmt.Println(string(e.Process(nil, []byte(`[{"jsonrpc":"2.0","id":"a","method":"get_data"},{"jsonrpc":"2.0","id":2,"method":"admin_peers"}]`))))
	// Output:
	// {"jsonrpc":"2.0","id":9007199254740993,"result":19}
	// [{"jsonrpc":"2.0","id":"a","result":["hello",5]},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}]
}
