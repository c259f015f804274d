package dispatch_test

import (
	"context"
	"fmt"

	"github.com/jetrpc/jetrpc/dispatch"
)

func ExampleEngine_Process() {
	e := dispatch.New(nil)
	defer e.Close()
	_ = e.Register("hello", dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		return append(dst, `"hello, world"`...), nil
	}))
	out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"hello","id":1}`))
	fmt.Println(string(out))
	// Output: {"jsonrpc":"2.0","id":1,"result":"hello, world"}
}

func ExampleTyped() {
	type args struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	e := dispatch.New(nil)
	defer e.Close()
	_ = e.Register("add", dispatch.Typed(func(_ context.Context, p args) (int, error) {
		return p.A + p.B, nil
	}))
	fmt.Println(string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}`))))
	fmt.Println(string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"add","params":{"a":3,"b":4},"id":2}`))))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":3}
	// {"jsonrpc":"2.0","id":2,"result":7}
}
