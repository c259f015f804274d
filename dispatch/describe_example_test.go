package dispatch_test

import (
	"context"
	"fmt"

	"github.com/jetrpc/jetrpc/dispatch"
)

// A freeze hook sees every registered method and may add methods of the
// engine's own, such as "rpc.discover" (package openrpc does this).
func ExampleEngine_OnFreeze() {
	e := dispatch.New(nil)
	defer e.Close()
	_ = e.RegisterMethod(dispatch.Method{
		Name:    "add",
		Handler: dispatch.Typed(func(_ context.Context, p [2]int) (int, error) { return p[0] + p[1], nil }),
	})
	_ = e.Register("sub", dispatch.Typed(func(_ context.Context, p [2]int) (int, error) { return p[0] - p[1], nil }))
	_ = e.OnFreeze(func(ms []dispatch.Method) []dispatch.Method {
		names := []byte(`[`)
		for i, m := range ms {
			if i > 0 {
				names = append(names, ',')
			}
			names = fmt.Appendf(names, "%q", m.Name)
		}
		names = append(names, ']')
		list := func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, names...), nil }
		return []dispatch.Method{{Name: "rpc.list", Handler: dispatch.HandlerFunc(list), Inline: true}}
	})
	fmt.Printf("%s\n", e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"rpc.list","id":1}`)))
	// Output: {"jsonrpc":"2.0","id":1,"result":["add","sub"]}
}
