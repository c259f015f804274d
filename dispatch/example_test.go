package dispatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

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

// A raw handler appends its result to dst; an error it returns becomes the
// error object. Registering a name twice, or a reserved "rpc." name, fails.
func ExampleEngine_Register() {
	e := dispatch.New(nil)
	defer e.Close()
	errNegative := dispatch.NewError(1001, "negative", nil)
	sqrt := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		var p [1]float64
		if err := json.Unmarshal(params, &p); err != nil {
			return dst, dispatch.NewError(-32602, "want [x]", nil)
		}
		if p[0] < 0 {
			return dst, errNegative
		}
		return strconv.AppendFloat(dst, math.Sqrt(p[0]), 'g', -1, 64), nil
	})
	fmt.Println(e.Register("sqrt", sqrt))
	fmt.Println(e.Register("sqrt", sqrt))
	fmt.Println(e.Register("rpc.sqrt", sqrt))
	fmt.Println(string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"sqrt","params":[2.25],"id":1}`))))
	fmt.Println(string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"sqrt","params":[-1],"id":2}`))))
	// Output:
	// <nil>
	// dispatch: method already registered: "sqrt"
	// dispatch: method names starting with "rpc." are reserved: "rpc.sqrt"
	// {"jsonrpc":"2.0","id":1,"result":1.5}
	// {"jsonrpc":"2.0","id":2,"error":{"code":1001,"message":"negative"}}
}
