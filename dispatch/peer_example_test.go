package dispatch_test

import (
	"bufio"
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
// with Reply, then notifies. The client here reads the raw wire of a TCP
// connection (newline-delimited JSON), so each message shows as sent.
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
	srv := netserver.New(e, nil)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())

	c, _ := net.Dial("tcp", ln.Addr().String())
	defer c.Close()
	fmt.Fprintln(c, `{"jsonrpc":"2.0","id":7,"method":"demo_subscribe"}`)
	r := bufio.NewReader(c)
	for range 3 {
		line, _ := r.ReadString('\n')
		fmt.Print(line)
	}
	// Output:
	// {"jsonrpc":"2.0","id":7,"result":"0x1"}
	// {"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":1}}
	// {"jsonrpc":"2.0","method":"demo_subscription","params":{"subscription":"0x1","result":2}}
}
