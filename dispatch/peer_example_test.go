package dispatch_test

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/netserver"
)

// A handler notifies its caller and calls it back over the connection the
// call came on; the client answers with an Engine of its own.
func ExamplePeerOf() {
	e := dispatch.New(nil)
	defer e.Close()
	_ = e.Register("build", dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
		peer := dispatch.PeerOf(ctx)
		for i := 1; i <= 2; i++ {
			if err := peer.Notify(ctx, "progress", []int{i, 2}); err != nil {
				return dst, err
			}
		}
		var ok bool
		if err := peer.Call(ctx, "confirm", []string{"deploy?"}, &ok); err != nil {
			return dst, err
		}
		return strconv.AppendBool(dst, ok), nil
	}))
	srv := netserver.New(e, nil)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())

	progress := make(chan string, 2)
	ce := dispatch.New(nil) // the client's side
	defer ce.Close()
	_ = ce.Register("progress", dispatch.Typed(func(_ context.Context, p [2]int) (any, error) {
		progress <- fmt.Sprintf("progress %d/%d", p[0], p[1])
		return nil, nil
	}))
	_ = ce.Register("confirm", dispatch.Typed(func(_ context.Context, q []string) (bool, error) {
		return q[0] == "deploy?", nil
	}))
	ctx := context.Background()
	c, _ := client.Dial(ctx, "tcp", ln.Addr().String(), &client.Options{Handler: ce})
	defer c.Close()
	var ok bool
	err := c.Call(ctx, "build", nil, &ok)
	fmt.Println(<-progress)
	fmt.Println(<-progress)
	fmt.Println("build:", ok, err)
	// Output:
	// progress 1/2
	// progress 2/2
	// build: true <nil>
}

// A subscription in go-ethereum's style: the handler answers the id first
// with Reply, then notifies; here the connection is a function that prints
// what would be written (a server transport makes the Conn).
func ExamplePeer_Reply() {
	e := dispatch.New(nil)
	defer e.Close()
	_ = e.Register("demo_subscribe", dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
		peer := dispatch.PeerOf(ctx)
		if err := peer.Reply(ctx, []byte(`"0x1"`)); err != nil {
			return dst, err
		}
		for i := 1; i <= 2; i++ {
			params := `{"subscription":"0x1","result":` + strconv.Itoa(i) + `}`
			if err := peer.NotifyRaw(ctx, "demo_subscription", []byte(params)); err != nil {
				return dst, err
			}
		}
		return dst, nil // answered already: the engine adds nothing
	}))
	conn := dispatch.NewConn(e, nil, func(_ context.Context, msg []byte) error {
		fmt.Println(string(msg))
		return nil
	}, false)
	defer conn.Close()
	out := conn.Process(nil, []byte(`{"jsonrpc":"2.0","id":7,"method":"demo_subscribe"}`))
	fmt.Printf("response left for the transport: %q\n", out)
	// Output:
	// {"jsonrpc":"2.0","id":7,"result":"0x1"}
	// {"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":1}}
	// {"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":2}}
	// response left for the transport: ""
}

// A transport's view of the engine: one Conn per connection. Cheap
// messages are answered by TryProcess on the reading goroutine; a message
// routed elsewhere runs with Process, here on a goroutine of its own (a
// server would use Conn.Go and a copy of the message). The handler's
// notification reaches the client through the Conn's send.
func ExampleNewConn() {
	e := dispatch.New(nil)
	defer e.Close()
	_ = e.RegisterMethod(dispatch.Method{Name: "add", Inline: true, Handler: dispatch.Typed(
		func(_ context.Context, p [2]int) (int, error) { return p[0] + p[1], nil })})
	_ = e.Register("slow_hello", dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
		err := dispatch.PeerOf(ctx).NotifyRaw(ctx, "hello", []byte(`["world"]`))
		return append(dst, "true"...), err
	}))
	conn := dispatch.NewConn(e, nil, func(_ context.Context, msg []byte) error {
		fmt.Println("to the client:", string(msg))
		return nil
	}, false)
	defer conn.Close()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"add","params":[2,3]}`,
		`{"jsonrpc":"2.0","id":2,"method":"slow_hello"}`,
	} {
		out, route := conn.TryProcess(nil, []byte(msg))
		if route != dispatch.RouteInline {
			done := make(chan []byte)
			go func() { done <- conn.Process(nil, []byte(msg)) }()
			out = <-done
		}
		fmt.Printf("route %d: %s\n", route, out)
	}
	// Output:
	// route 0: {"jsonrpc":"2.0","id":1,"result":5}
	// to the client: {"jsonrpc":"2.0","method":"hello","params":["world"]}
	// route 1: {"jsonrpc":"2.0","id":2,"result":true}
}
