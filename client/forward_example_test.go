package client_test

import (
	"context"
	"fmt"

	"github.com/jetrpc/jetrpc/client"
)

// Forward raw calls through a pool, as a gateway does: CallRawOn pins a
// call to one endpoint (a subscription), Probe checks one endpoint's
// health, and a batch's CallRaw and NotifyRaw take params as raw JSON,
// copied as they are.
func ExamplePool_CallRawOn() {
	ctx := context.Background()
	var cs []*client.Client
	for range 2 {
		addr, _, stop := serveDemo()
		defer stop()
		c, err := client.Dial(ctx, "tcp", addr, nil)
		if err != nil {
			panic(err)
		}
		cs = append(cs, c)
	}
	p, err := client.NewPool(cs, nil)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	res, err := p.CallRawOn(ctx, 1, nil, "subtract", []byte(`[42, 23]`))
	fmt.Println(string(res), err, p.Usable(1), p.Probe(ctx, 0, "get_data", nil))

	b := p.NewBatch()
	echo := b.CallRaw("echo", []byte(`{"a" : [1, 2.50]}`))
	b.NotifyRaw("update", []byte(`[1]`))
	err = b.Send(ctx)
	fmt.Println(string(echo.Raw()), err)
	fmt.Println(p.NotifyRaw(ctx, "update", nil))
	// Output:
	// 19 <nil> true <nil>
	// {"a" : [1, 2.50]} <nil>
	// <nil>
}

// Pass a server's error object on as it came, as a gateway does:
// ForwardRaw appends it to dst (where CallRaw appends a result) and returns
// its parsed error too; a batch's CallRaw keeps it as RawError.
func ExamplePool_ForwardRaw() {
	ctx := context.Background()
	addr, _, stop := serveDemo()
	defer stop()
	c, err := client.Dial(ctx, "tcp", addr, nil)
	if err != nil {
		panic(err)
	}
	p, err := client.NewPool([]*client.Client{c}, nil)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	fail := []byte(`{"code":3,"message":"execution reverted","data":"0x08c379a0"}`)
	out, err := p.ForwardRaw(ctx, []byte("error: "), "fail", fail)
	fmt.Println(string(out))
	fmt.Println(err)

	b := p.NewBatch()
	call := b.CallRaw("fail", fail)
	fmt.Println(b.Send(ctx), string(call.RawError()))
	// Output:
	// error: {"code":3,"message":"execution reverted","data":"0x08c379a0"}
	// jsonrpc: code 3: execution reverted
	// <nil> {"code":3,"message":"execution reverted","data":"0x08c379a0"}
}
