package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
)

type subArgs struct {
	Minuend    int `json:"minuend"`
	Subtrahend int `json:"subtrahend"`
}

type point struct{ X, Y float64 }

func typedEngine(t *testing.T) *dispatch.Engine {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.Register("sub", dispatch.Typed(func(_ context.Context, a subArgs) (int, error) {
		return a.Minuend - a.Subtrahend, nil
	})))
	must(e.Register("subp", dispatch.Typed(func(_ context.Context, a *subArgs) (int, error) {
		return a.Minuend - a.Subtrahend, nil
	})))
	must(e.Register("sum", dispatch.Typed(func(_ context.Context, xs []float64) (float64, error) {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s, nil
	})))
	must(e.Register("double", dispatch.Typed(func(_ context.Context, n int) (int, error) { return 2 * n, nil })))
	must(e.Register("mid", dispatch.Typed(func(_ context.Context, p [2]point) (point, error) {
		return point{(p[0].X + p[1].X) / 2, (p[0].Y + p[1].Y) / 2}, nil
	})))
	must(e.Register("meta", dispatch.Typed(func(ctx context.Context, _ struct{}) (string, error) {
		return string(dispatch.Meta(ctx)), nil
	})))
	must(e.Register("deny", dispatch.Typed(func(_ context.Context, _ struct{}) (any, error) {
		return nil, dispatch.NewError(1001, "denied", []byte(`{"reason":"test"}`))
	})))
	must(e.Register("oops", dispatch.Typed(func(_ context.Context, _ struct{}) (any, error) {
		return nil, errors.New("disk on fire")
	})))
	return e
}

func TestTyped(t *testing.T) {
	e := typedEngine(t)
	ok := func(in, want string) {
		t.Helper()
		r := parseOne(t, e.Process(nil, []byte(in)))
		if r.Error != nil || string(r.Result) != want {
			t.Fatalf("%s: result %s error %+v, want %s", in, r.Result, r.Error, want)
		}
	}
	bad := func(in string, code int, dataHas ...string) {
		t.Helper()
		out := e.Process(nil, []byte(in))
		r := parseOne(t, out)
		if r.Error == nil || r.Error.Code != code {
			t.Fatalf("%s: want error %d, got %s", in, code, out)
		}
		for _, s := range dataHas {
			if !strings.Contains(string(r.Error.Data), s) {
				t.Fatalf("%s: error.data %s does not mention %q", in, r.Error.Data, s)
			}
		}
	}
	ok(`{"jsonrpc":"2.0","method":"sub","params":[42,23],"id":1}`, `19`)
	ok(`{"jsonrpc":"2.0","method":"sub","params":{"subtrahend":23,"minuend":42},"id":1}`, `19`)
	ok(`{"jsonrpc":"2.0","method":"sub","params":{"minu\u0065nd":5},"id":1}`, `5`)
	ok(`{"jsonrpc":"2.0","method":"sub","id":1}`, `0`)
	ok(`{"jsonrpc":"2.0","method":"subp","params":[10,4],"id":1}`, `6`)
	ok(`{"jsonrpc":"2.0","method":"subp","params":{"minuend":10},"id":1}`, `10`)
	ok(`{"jsonrpc":"2.0","method":"subp","id":1}`, `0`)
	ok(`{"jsonrpc":"2.0","method":"sum","params":[1,2.5,3],"id":1}`, `6.5`)
	ok(`{"jsonrpc":"2.0","method":"double","params":[21],"id":1}`, `42`)
	ok(`{"jsonrpc":"2.0","method":"mid","params":[{"X":0,"Y":0},{"X":2,"Y":4}],"id":1}`, `{"X":1,"Y":2}`)
	ok(`{"jsonrpc":"2.0","method":"meta","params":{},"id":1,"_meta":{"t":1}}`, `"{\"t\":1}"`)

	bad(`{"jsonrpc":"2.0","method":"sub","params":["42",23],"id":1}`, -32602, `"index":0`, `"param":"minuend"`)
	bad(`{"jsonrpc":"2.0","method":"sub","params":{"minuend":42,"subtrahend":"x"},"id":1}`, -32602, `"param":"subtrahend"`)
	bad(`{"jsonrpc":"2.0","method":"sub","params":[1,2,3],"id":1}`, -32602, `too many params`)
	bad(`{"jsonrpc":"2.0","method":"sub","params":[1.5,2],"id":1}`, -32602, `minuend`)
	bad(`{"jsonrpc":"2.0","method":"sum","params":{"a":1},"id":1}`, -32602)
	bad(`{"jsonrpc":"2.0","method":"sum","params":["x"],"id":1}`, -32602)
	bad(`{"jsonrpc":"2.0","method":"double","params":[1,2],"id":1}`, -32602, `one value`)
	bad(`{"jsonrpc":"2.0","method":"double","params":{"n":1},"id":1}`, -32602)
	bad(`{"jsonrpc":"2.0","method":"deny","id":1}`, 1001, `"reason":"test"`)
	bad(`{"jsonrpc":"2.0","method":"oops","id":1}`, -32603, `disk on fire`)
}

func TestMiddleware(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	var order []string
	mw := func(tag string) dispatch.Middleware {
		return func(method string, next dispatch.Handler) dispatch.Handler {
			return dispatch.HandlerFunc(func(ctx context.Context, p, dst []byte) ([]byte, error) {
				order = append(order, tag+":"+method)
				return next.ServeRPC(ctx, p, dst)
			})
		}
	}
	if err := e.Register("m", dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		order = append(order, "handler")
		return append(dst, '1'), nil
	})); err != nil {
		t.Fatal(err)
	}
	if err := e.Use(mw("outer"), mw("inner")); err != nil {
		t.Fatal(err)
	}
	out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"m","id":1}`))
	if string(out) != `{"jsonrpc":"2.0","id":1,"result":1}` {
		t.Fatalf("got %s", out)
	}
	if got := strings.Join(order, ","); got != "outer:m,inner:m,handler" {
		t.Fatalf("middleware order %s", got)
	}
}

// TestTypedRawEcho: a json.RawMessage result that is the params byte for
// byte goes out compacted without a second check; one that is not (even the
// params changed in place) is checked, so only valid JSON leaves the engine.
func TestTypedRawEcho(t *testing.T) {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	reg := func(name string, fn func(context.Context, json.RawMessage) (json.RawMessage, error)) {
		if err := e.Register(name, dispatch.Typed(fn)); err != nil {
			t.Fatal(err)
		}
	}
	reg("echo", func(_ context.Context, p json.RawMessage) (json.RawMessage, error) { return p, nil })
	reg("spoil", func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
		p[0] = 'x' // same length, no longer JSON
		return p, nil
	})
	reg("other", func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(` { "a" : [ 1 , "b  c" ] } `), nil
	})
	f := func(in, want string) {
		t.Helper()
		if got := string(e.Process(nil, []byte(in))); got != want {
			t.Errorf("Process(%s)\n got %s\nwant %s", in, got, want)
		}
	}
	f(`{"jsonrpc":"2.0","method":"echo","params":[1,"a b",{"c":null}],"id":1}`,
		`{"jsonrpc":"2.0","id":1,"result":[1,"a b",{"c":null}]}`)
	f(`{"jsonrpc":"2.0","method":"echo","params":[ 1 ,	"a \" b\\" ,
 {"c" : null } ],"id":2}`,
		`{"jsonrpc":"2.0","id":2,"result":[1,"a \" b\\",{"c":null}]}`)
	f(`{"jsonrpc":"2.0","method":"echo","params":{},"id":3}`, `{"jsonrpc":"2.0","id":3,"result":{}}`)
	f(`{"jsonrpc":"2.0","method":"other","params":[1],"id":4}`, `{"jsonrpc":"2.0","id":4,"result":{"a":[1,"b  c"]}}`)
	got := string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"spoil","params":[1],"id":5}`)))
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,`) {
		t.Errorf("spoil: %s, want -32603", got)
	}
}
