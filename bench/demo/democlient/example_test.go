package democlient_test

import (
	"context"
	"fmt"
	"net"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/bench/demo/democlient"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

func ExampleClient() {
	ctx := context.Background()
	e := dispatch.New(nil)
	defer e.Close()
	_ = demo.Register(e)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	srv := netserver.New(e, nil)
	go srv.Serve(ln)
	defer srv.Shutdown(ctx)

	cc, _ := client.Dial(ctx, "tcp", ln.Addr().String(), nil)
	defer cc.Close()
	c := democlient.NewClient(cc)
	d, err := c.Subtract(ctx, 42, 23)
	fmt.Println(d, err)
	s, err := c.Sum(ctx, 1, 2, 4)
	fmt.Println(s, err)
	// Output:
	// 19 <nil>
	// 7 <nil>
}

func ExampleRegister() {
	e := dispatch.New(nil)
	defer e.Close()
	_ = democlient.Register(e, impl{}) // impl implements democlient.Server
	fmt.Printf("%s\n", e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":5,"subtrahend":3},"id":1}`)))
	// Output: {"jsonrpc":"2.0","id":1,"result":2}
}
