package dispatch_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jetrpc/jetrpc/dispatch"
)

// A handler may return any slice: here a fresh one, which the engine
// copies into the response. A result that is not one JSON value never
// leaves the engine: it is answered -32603.
func ExampleHandler_results() {
	e := dispatch.New(&dispatch.Options{Logger: slog.New(slog.DiscardHandler)})
	defer e.Close()
	_ = e.Register("fresh", dispatch.HandlerFunc(func(_ context.Context, _, _ []byte) ([]byte, error) {
		return []byte(`{"a":"a fresh slice, longer than the envelope before it"}`), nil
	}))
	_ = e.Register("broken", dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		return append(dst, "hello"...), nil // not JSON
	}))
	fmt.Println(string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"fresh","id":1}`))))
	fmt.Println(string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"broken","id":2}`))))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"a":"a fresh slice, longer than the envelope before it"}}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error","data":"the handler's result is not one valid JSON value"}}
}

// A call's context may be kept: once the call ended it is done and shows
// no request values. Detach keeps them, for work that outlives the call.
func ExampleDetach() {
	e := dispatch.New(nil)
	defer e.Close()
	kept := make(chan [2]context.Context, 1)
	_ = e.Register("work", dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
		kept <- [2]context.Context{ctx, dispatch.Detach(ctx)}
		return append(dst, "true"...), nil
	}))
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"work","id":"job-7"}`))
	k := <-kept
	ctx, bg := k[0], k[1]
	fmt.Println(ctx.Err(), dispatch.RequestID(ctx) == nil)
	fmt.Println(bg.Err(), string(dispatch.RequestID(bg)))
	// Output:
	// context canceled true
	// <nil> "job-7"
}
