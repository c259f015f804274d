package dispatch_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/netserver"
)

// later is an AsyncForwarder that answers each call 10ms later, from a
// timer's goroutine: no goroutine waits for it meanwhile.
type later struct{ dispatch.ForwarderFunc }

func (later) ForwardAsync(ctx context.Context, p *decode.Parser, a *dispatch.Answer) bool {
	m := p.Message() // valid until a.Done
	time.AfterFunc(10*time.Millisecond, func() {
		a.Done(encode.AppendResult(a.Buf(), m.ID, encode.AppendStringBytes(nil, m.Method)))
	})
	return true
}

// A Forwarder that answers single calls later, from wherever the answer
// comes (package gateway's upstream readers): on a stream connection the
// engine hands it each call with an Answer and no worker waits.
func ExampleAsyncForwarder() {
	fwd := later{dispatch.ForwarderFunc(func(ctx context.Context, dst []byte, p *decode.Parser) []byte {
		return dst // batches and notifications: none here
	})}
	e := dispatch.New(&dispatch.Options{Forward: fwd})
	defer e.Close()
	srv := netserver.New(e, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	c, err := client.Dial(context.Background(), "tcp", ln.Addr().String(), nil)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	res, err := c.CallRaw(context.Background(), nil, "eth_chainId", nil)
	fmt.Println(string(res), err)
	// Output:
	// "eth_chainId" <nil>
}
