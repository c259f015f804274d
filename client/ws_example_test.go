package client_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/jetrpc/jetrpc/client"
)

// Call a jetrpc HTTP server over its WebSocket endpoint, /ws: one text
// message per call, notification or batch, all on one connection.
func ExampleDialWebSocket() {
	_, httpURL, stop := serveDemo()
	defer stop()
	ctx := context.Background()

	url := "ws://" + strings.TrimPrefix(httpURL, "http://") + "/ws"
	c, err := client.DialWebSocket(ctx, url, nil)
	if err != nil {
		panic(err)
	}
	defer c.Close()

	var diff int
	err = c.Call(ctx, "subtract", []int{42, 23}, &diff)
	fmt.Println("subtract:", diff, err)

	raw, err := c.CallRaw(ctx, nil, "sum", []byte(`[1,2,3]`))
	fmt.Printf("sum: %s %v\n", raw, err)

	fmt.Println("notify:", c.Notify(ctx, "update", []int{1}))

	err = c.Call(ctx, "no_such_method", nil, nil)
	fmt.Println(err)
	// Output:
	// subtract: 19 <nil>
	// sum: 6 <nil>
	// notify: <nil>
	// jsonrpc: code -32601: Method not found
}
