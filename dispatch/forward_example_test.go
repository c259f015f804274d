package dispatch_test

import (
	"context"
	"fmt"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// An Engine whose Forward takes over its calls (package gateway's Gateway
// is one): this one answers each call with its method's name. The engine
// still answers what does not parse or is invalid.
func ExampleForwarderFunc() {
	e := dispatch.New(&dispatch.Options{Forward: dispatch.ForwarderFunc(
		func(ctx context.Context, dst []byte, p *decode.Parser) []byte {
			m := p.Message()
			if m.Kind != decode.Call { // a notification or a batch: nothing here
				return dst
			}
			return encode.AppendResult(dst, m.ID, encode.AppendStringBytes(nil, m.Method))
		})})
	defer e.Close()
	fmt.Println(string(e.Process(nil, []byte(`{"jsonrpc":"2.0","id":"a\u0041","method":"eth_chainId"}`))))
	fmt.Println(string(e.Process(nil, []byte(`{"jsonrpc":"2.0","id":2,"method":7}`))))
	// Output:
	// {"jsonrpc":"2.0","id":"a\u0041","result":"eth_chainId"}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid Request","data":"method must be a string"}}
}
