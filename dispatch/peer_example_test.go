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
