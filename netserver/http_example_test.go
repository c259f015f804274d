package netserver_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// HTTPHandler mounts an engine in any net/http server.
func ExampleHTTPHandler() {
	e := dispatch.New(nil)
	defer e.Close()
	if err := demo.Register(e); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(netserver.HTTPHandler(e, nil))
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
