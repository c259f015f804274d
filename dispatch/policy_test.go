package dispatch_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// TestMethodTimeout: a method over its own timeout gets the timeout error
// with its context cancelled, while the other methods keep the engine's
// CallTimeout (and an Inline method with a Timeout is timed too).
func TestMethodTimeout(t *testing.T) {
	cancelled := make(chan bool, 1)
	slow := dispatch.Method{Name: "slow", Timeout: 30 * time.Millisecond, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			select {
			case <-ctx.Done():
				cancelled <- true
			case <-time.After(2 * time.Second):
				cancelled <- false
			}
			return append(dst, "true"...), nil
		})}
	inline := dispatch.Method{Name: "inline_wait", Inline: true, Timeout: 20 * time.Millisecond,
		Handler: dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
			<-ctx.Done()
			return append(dst, "true"...), nil
		})}
	f := func(e *dispatch.Engine, msg, want string) {
		t.Helper()
		if out := e.Process(nil, []byte(msg)); string(out) != want {
			t.Errorf("%s\n got %s\nwant %s", msg, out, want)
		}
	}
	timedOut := func(id, d string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32003,"message":"Request timed out","data":"call took longer than ` + d + `"}}`
	}
	for _, server := range []time.Duration{0, 500 * time.Millisecond} {
		e := newDemo(t, &dispatch.Options{CallTimeout: server}, slow, inline)
		f(e, `{"jsonrpc":"2.0","method":"slow","id":1}`, timedOut("1", "30ms"))
		if !<-cancelled {
			t.Errorf("CallTimeout %v: the slow method's context was not cancelled", server)
		}
		f(e, `{"jsonrpc":"2.0","method":"inline_wait","id":2}`, timedOut("2", "20ms"))
		// sleep keeps the engine's bound: 100 ms is within 500 ms (and no bound).
		f(e, `{"jsonrpc":"2.0","method":"sleep","params":[100],"id":3}`, `{"jsonrpc":"2.0","id":3,"result":100}`)
		if server > 0 {
			f(e, `{"jsonrpc":"2.0","method":"sleep","params":[5000],"id":4}`, timedOut("4", "500ms"))
		}
		e.Close()
	}
}

// TestMethodSet: a connection (and a set's ProcessContext) serves only the
// set's methods, by name and prefix; the rest are -32601 exactly as
// unknown ones, in batches too; rpc. methods stay served.
func TestMethodSet(t *testing.T) {
	ok := dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, "1"...), nil })
	e := newDemo(t, nil, dispatch.Method{Name: "eth_chainId", Handler: ok, Inline: true},
		dispatch.Method{Name: "admin_peers", Handler: ok, Inline: true})
	if err := e.OnFreeze(func([]dispatch.Method) []dispatch.Method {
		return []dispatch.Method{{Name: "rpc.ping", Handler: ok, Inline: true}}
	}); err != nil {
		t.Fatal(err)
	}
	set := e.NewMethodSet([]string{"eth_", "subtract"})
	c := engineconn.NewConn(e, dispatch.WithMethodSet(context.Background(), set), nil, false)
	defer c.Close()
	notFound := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"Method not found"}}`
	}
	f := func(msg, want string) {
		t.Helper()
		if out, _ := try(c, nil, []byte(msg)); string(out) != want {
			t.Errorf("conn: %s\n got %s\nwant %s", msg, out, want)
		}
		if out := set.ProcessContext(context.Background(), nil, []byte(msg)); string(out) != want {
			t.Errorf("set: %s\n got %s\nwant %s", msg, out, want)
		}
	}
	f(`{"jsonrpc":"2.0","method":"eth_chainId","id":1}`, `{"jsonrpc":"2.0","id":1,"result":1}`)
	f(`{"jsonrpc":"2.0","method":"subtract","params":[3,1],"id":2}`, `{"jsonrpc":"2.0","id":2,"result":2}`)
	f(`{"jsonrpc":"2.0","method":"admin_peers","id":3}`, notFound("3"))
	f(`{"jsonrpc":"2.0","method":"sum","params":[1],"id":4}`, notFound("4"))
	f(`{"jsonrpc":"2.0","method":"rpc.ping","id":5}`, `{"jsonrpc":"2.0","id":5,"result":1}`)
	f(`[{"jsonrpc":"2.0","method":"sum","params":[1],"id":6},{"jsonrpc":"2.0","method":"eth_chainId","id":7}]`,
		`[`+notFound("6")+`,{"jsonrpc":"2.0","id":7,"result":1}]`)
	// The engine itself, and a connection without a set, serve everything.
	if out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"admin_peers","id":8}`)); string(out) != `{"jsonrpc":"2.0","id":8,"result":1}` {
		t.Errorf("engine: got %s", out)
	}
	for _, c := range []struct {
		name string
		want bool
	}{{"eth_x", true}, {"subtract", true}, {"subtractx", false}, {"admin_peers", false}, {"rpc.discover", true}} {
		if got := set.Has(c.name); got != c.want {
			t.Errorf("Has(%q) = %v", c.name, got)
		}
	}
	if !e.NewMethodSet([]string{"*"}).Has("admin_peers") || (*dispatch.MethodSet)(nil).Has("x") != true {
		t.Error("* or nil does not serve everything")
	}
}

// TestMethodCost: a connection is charged each message's cost once the
// engine parsed it: each call its method's Cost (1 unknown), a batch the
// sum; over the rate every call in it is -32005 and nothing runs.
func TestMethodCost(t *testing.T) {
	var ran atomic.Int32
	costly := dispatch.Method{Name: "costly", Cost: 10, Inline: true, Handler: dispatch.HandlerFunc(
		func(_ context.Context, _, dst []byte) ([]byte, error) { ran.Add(1); return append(dst, "1"...), nil })}
	e := newDemo(t, nil, costly)
	c := newConn(e, nil, false)
	defer c.Close()
	var charged []int
	budget := 25
	c.SetCharge(func(n int) bool {
		charged = append(charged, n)
		if n > budget {
			return false
		}
		budget -= n
		return true
	})
	f := func(msg, want string) {
		t.Helper()
		if out, _ := try(c, nil, []byte(msg)); string(out) != want {
			t.Errorf("%s\n got %s\nwant %s", msg, out, want)
		}
	}
	f(`{"jsonrpc":"2.0","method":"costly","id":1}`, `{"jsonrpc":"2.0","id":1,"result":1}`)
	f(`{"jsonrpc":"2.0","method":"nope","id":2}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`)
	f(`[{"jsonrpc":"2.0","method":"costly","id":3},{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":4}]`,
		`[{"jsonrpc":"2.0","id":3,"result":1},{"jsonrpc":"2.0","id":4,"result":1}]`)
	limited := `{"jsonrpc":"2.0","id":5,"error":{"code":-32005,"message":"Limit exceeded"}}`
	f(`{"jsonrpc":"2.0","method":"costly","id":5}`, limited) // 3 left
	f(`{"jsonrpc":"2.0","method":"subtract","params":[2,1],"id":6}`, `{"jsonrpc":"2.0","id":6,"result":1}`)
	if want := []int{10, 1, 11, 10, 1}; fmt.Sprint(charged) != fmt.Sprint(want) {
		t.Errorf("charged %v, want %v", charged, want)
	}
	if ran.Load() != 2 {
		t.Errorf("costly ran %d times, want 2", ran.Load())
	}
	for msg, want := range map[string]int{
		`{"jsonrpc":"2.0","method":"costly","id":1}`: 10, `{"jsonrpc":"2.0","method":"x"}`: 1,
		`[{"jsonrpc":"2.0","method":"costly"},{"jsonrpc":"2.0","method":"sum","id":1},1]`: 12,
		`{"jsonrpc":"2.0","result":1,"id":1}`:                                             0, `{`: 1,
	} {
		if got := e.MessageCost([]byte(msg)); got != want {
			t.Errorf("MessageCost(%s) = %d, want %d", msg, got, want)
		}
	}
}

// TestStrictParams: with StrictParams (per method or per engine) an
// unknown member of named params is -32602 naming it; without, ignored.
func TestStrictParams(t *testing.T) {
	type args struct {
		A int    `json:"a"`
		B string `json:"b,omitempty"`
	}
	add := dispatch.Typed(func(_ context.Context, p args) (int, error) { return p.A + len(p.B), nil })
	e := newDemo(t, nil, dispatch.Method{Name: "strict", Handler: add, StrictParams: true},
		dispatch.Method{Name: "lax", Handler: add})
	f := func(e *dispatch.Engine, msg, want string) {
		t.Helper()
		if out := e.Process(nil, []byte(msg)); string(out) != want {
			t.Errorf("%s\n got %s\nwant %s", msg, out, want)
		}
	}
	unknown := func(name string) string {
		return `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"param":"` + name + `","error":"unknown member"}}}`
	}
	f(e, `{"jsonrpc":"2.0","method":"strict","params":{"a":1,"bogus":2},"id":1}`, unknown("bogus"))
	f(e, `{"jsonrpc":"2.0","method":"strict","params":{"a":1,"b\u0078":2},"id":1}`, unknown("bx"))
	f(e, `{"jsonrpc":"2.0","method":"strict","params":{"A":1,"b":"xy"},"id":1}`, `{"jsonrpc":"2.0","id":1,"result":3}`)
	f(e, `{"jsonrpc":"2.0","method":"strict","params":[1,"x"],"id":1}`, `{"jsonrpc":"2.0","id":1,"result":2}`)
	f(e, `{"jsonrpc":"2.0","method":"lax","params":{"a":1,"bogus":2},"id":1}`, `{"jsonrpc":"2.0","id":1,"result":1}`)
	all := newDemo(t, &dispatch.Options{StrictParams: true}, dispatch.Method{Name: "lax", Handler: add})
	f(all, `{"jsonrpc":"2.0","method":"lax","params":{"a":1,"bogus":2},"id":1}`, unknown("bogus"))
	f(all, `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":3,"subtrahend":1},"id":1}`, `{"jsonrpc":"2.0","id":1,"result":2}`)
}
