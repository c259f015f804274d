package dispatch_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// TestMessages covers PROTOCOL.md's Messages and Errors rules, one line per case:
// the request, then the expected error code (0 for success) and the exact id bytes.
func TestMessages(t *testing.T) {
	var logs strings.Builder
	e := newDemo(t, &dispatch.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	f := func(in string, wantCode int, wantID string) {
		t.Helper()
		out := e.Process(nil, []byte(in))
		r := parseOne(t, out)
		if string(r.ID) != wantID {
			t.Fatalf("%s\n id = %s, want %s (response %s)", in, r.ID, wantID, out)
		}
		code := 0
		if r.Error != nil {
			code = r.Error.Code
		}
		if code != wantCode {
			t.Fatalf("%s\n code = %d, want %d (response %s)", in, code, wantCode, out)
		}
	}
	call := func(id string) string {
		return `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":` + id + `}`
	}

	// Ids come back byte for byte.
	for _, id := range []string{`1`, `9007199254740993`, `1e3`, `-0`, `1.5`, `"a\u0041"`, `null`, `""`, `-1.5E-10`, `"\ud83d\ude00"`, `123456789012345678901234567890`} {
		f(call(id), 0, id)
	}
	// jsonrpc must be exactly "2.0".
	f(`{"jsonrpc":"2\u002e0","method":"get_data","id":1}`, 0, `1`)
	for _, v := range []string{`2.0`, `"2"`, `"2.0.0"`, `"2.0 "`, `null`, `"1.0"`, `["2.0"]`} {
		f(`{"jsonrpc":`+v+`,"method":"get_data","id":1}`, -32600, `1`)
	}
	f(`{"method":"get_data","id":1}`, -32600, `1`)
	// method must be a string; names compare after unescaping, case-sensitively.
	for _, m := range []string{`1`, `null`, `["subtract"]`, `{}`, `true`} {
		f(`{"jsonrpc":"2.0","method":`+m+`,"id":2}`, -32600, `2`)
	}
	f(`{"jsonrpc":"2.0","m\u0065thod":"subtr\u0061ct","params":[5,3],"id":3}`, 0, `3`)
	f(`{"jsonrpc":"2.0","Method":"subtract","params":[5,3],"id":3}`, -32600, `3`)
	f(`{"jsonrpc":"2.0","method":"Subtract","id":3}`, -32601, `3`)
	f(`{"jsonrpc":"2.0","method":"rpc.discover.x","id":3}`, -32601, `3`)
	// params: absent, array or object only.
	f(`{"jsonrpc":"2.0","method":"get_data","params":[],"id":4}`, 0, `4`)
	f(`{"jsonrpc":"2.0","method":"get_data","params":{},"id":4}`, 0, `4`)
	for _, p := range []string{`"bar"`, `1`, `true`, `null`} {
		f(`{"jsonrpc":"2.0","method":"get_data","params":`+p+`,"id":4}`, -32600, `4`)
	}
	// id: string, number or null; anything else is answered with id null.
	for _, id := range []string{`{}`, `[1]`, `true`, `false`} {
		f(`{"jsonrpc":"2.0","method":"get_data","id":`+id+`}`, -32600, `null`)
	}
	// Any member twice is rejected; a duplicated id is not echoed.
	f(`{"jsonrpc":"2.0","method":"get_data","method":"subtract","id":5}`, -32600, `5`)
	f(`{"jsonrpc":"2.0","method":"get_data","m\u0065thod":"subtract","id":5}`, -32600, `5`)
	f(`{"jsonrpc":"2.0","jsonrpc":"2.0","method":"get_data","id":5}`, -32600, `5`)
	f(`{"jsonrpc":"2.0","method":"get_data","params":[],"params":{},"id":5}`, -32600, `5`)
	f(`{"jsonrpc":"2.0","method":"get_data","id":5,"id":6}`, -32600, `null`)
	f(`{"jsonrpc":"2.0","method":"get_data","id":5,"x":1,"x":2}`, -32600, `5`)
	f(`{"jsonrpc":"2.0","method":"get_data","id":5,"_meta":{},"_m\u0065ta":{}}`, -32600, `5`)
	// Unknown members are accepted.
	f(`{"jsonrpc":"2.0","method":"get_data","id":7,"foo":{"bar":[1,2]},"_meta":{"k":1}}`, 0, `7`)
	// Neither a request nor a valid response: Invalid Request, answered even without an id.
	f(`{"foo":"boo"}`, -32600, `null`)
	f(`{}`, -32600, `null`)
	f(`{"jsonrpc":"2.0","method":"get_data","result":1,"id":8}`, -32600, `8`)
	f(`{"jsonrpc":"2.0","result":1,"error":{"code":1,"message":"x"},"id":8}`, -32600, `8`)
	f(`{"jsonrpc":"2.0","result":1}`, -32600, `null`)
	f(`1`, -32600, `null`)
	f(`"x"`, -32600, `null`)
	f(`null`, -32600, `null`)
	f(`{"jsonrpc":"2.0","method":1,"params":"bar"}`, -32600, `null`)
	// Not JSON, not UTF-8, truncated: Parse error with id null.
	for _, in := range []string{``, ` `, `{`, `{"jsonrpc":"2.0"`, `{"jsonrpc":"2.0","method":"get_data","id":1,}`,
		`{"jsonrpc":'2.0'}`, `{"jsonrpc":"2.0","method":"get_data","id":01}`, "{\"jsonrpc\":\"2.0\",\"method\":\"get\xff\",\"id\":1}",
		"{\"jsonrpc\":\"2.0\",\"method\":\"get_data\",\"id\":\"\xed\xa0\x80\"}", `{"a":"\x"}`, `{"id":1} {"id":2}`, `nul`, `[1,]`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"a\nb\",\"id\":1}"} {
		f(in, -32700, `null`)
	}
	// Handlers: invalid params, application errors with data, panics.
	f(`{"jsonrpc":"2.0","method":"subtract","params":[1],"id":9}`, -32602, `9`)
	f(`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1},"id":9}`, -32602, `9`)
	f(`{"jsonrpc":"2.0","method":"subtract","params":["a","b"],"id":9}`, -32602, `9`)
	f(`{"jsonrpc":"2.0","method":"fail","params":{"code":42,"message":"no","data":[1]},"id":10}`, 42, `10`)
	f(`{"jsonrpc":"2.0","method":"panic","id":11}`, -32603, `11`)
	if !strings.Contains(logs.String(), "demo: panic method called") {
		t.Fatalf("the panic was not logged: %q", logs.String())
	}
	f(call(`12`), 0, `12`) // still serving after the panic
}

func TestResults(t *testing.T) {
	e := newDemo(t, nil)
	f := func(in, want string) {
		t.Helper()
		out := e.Process(nil, []byte(in))
		r := parseOne(t, out)
		if r.Error != nil || string(r.Result) != want {
			t.Fatalf("%s\n got %s, want result %s", in, out, want)
		}
	}
	f(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`, `19`)
	f(`{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":1}`, `19`)
	f(`{"jsonrpc":"2.0","method":"subtract","params":[1.5,0.25],"id":1}`, `1.25`)
	f(`{"jsonrpc":"2.0","method":"subtract","params":[9223372036854775807,-1],"id":1}`, `9.223372036854776e+18`) // overflow: exact float
	f(`{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":1}`, `7`)
	f(`{"jsonrpc":"2.0","method":"sum","params":[],"id":1}`, `0`)
	f(`{"jsonrpc":"2.0","method":"get_data","id":1}`, `["hello",5]`)
	f(`{"jsonrpc":"2.0","method":"echo","params":{"a":[1,"\u00e9"]},"id":1}`, `{"a":[1,"\u00e9"]}`)
	f(`{"jsonrpc":"2.0","method":"echo","id":1}`, `null`)
	f(`{"jsonrpc":"2.0","method":"update","params":[1],"id":1}`, `null`)
	f(`{"jsonrpc":"2.0","method":"sleep","params":[1],"id":1}`, `1`)
	f(`{"jsonrpc":"2.0","method":"sleep","params":{"ms":2},"id":1}`, `2`)
}

func TestErrorObjects(t *testing.T) {
	e := newDemo(t, nil, dispatch.Method{Name: "plain_error", Handler: dispatch.HandlerFunc(
		func(context.Context, []byte, []byte) ([]byte, error) { return nil, context.Canceled })})
	out := string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"fail","params":{"code":-1,"message":"bad \"thing\"","data":{"why":1}},"id":"x"}`)))
	want := `{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"bad \"thing\"","data":{"why":1}}}`
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	out = string(e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"foobar","id":1}`)))
	if out != `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}` {
		t.Fatalf("method not found: %s", out)
	}
	r := parseOne(t, e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"plain_error","id":1}`)))
	if r.Error == nil || r.Error.Code > -32000 || r.Error.Code < -32099 {
		t.Fatalf("a cancelled handler must get a server error code, got %+v", r.Error)
	}
	r = parseOne(t, e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"x","params":"p","id":1}`)))
	if !strings.Contains(string(r.Error.Data), "params") {
		t.Fatalf("error.data should name the problem: %s", r.Error.Data)
	}
}

func TestNoResponse(t *testing.T) {
	e := newDemo(t, nil)
	f := func(in string) {
		t.Helper()
		dst := []byte("keep")
		if out := e.Process(dst, []byte(in)); string(out) != "keep" {
			t.Fatalf("%s: want no response, got %q", in, out[4:])
		}
	}
	f(`{"jsonrpc":"2.0","method":"update","params":[1,2,3]}`)
	f(`{"jsonrpc":"2.0","method":"no_such_method"}`)
	f(`{"jsonrpc":"2.0","method":"panic"}`)
	f(`{"jsonrpc":"2.0","method":"fail","params":{"code":1,"message":"x"}}`)
	f(`{"jsonrpc":"2.0","method":"subtract","params":["bad"]}`)
	f(`[{"jsonrpc":"2.0","method":"update"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]}]`)
	before := e.Dropped()
	f(`{"jsonrpc":"2.0","result":19,"id":1}`)
	f(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`)
	f(`{"jsonrpc":"2.0","result":null,"id":null}`)
	f(`[{"jsonrpc":"2.0","result":19,"id":1}]`)
	if got := e.Dropped() - before; got != 4 {
		t.Fatalf("dropped responses = %d, want 4", got)
	}
}

func TestMeta(t *testing.T) {
	var got string
	e := newDemo(t, nil, dispatch.Method{Name: "meta", Inline: true, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			got = string(dispatch.Meta(ctx)) + " " + string(dispatch.RequestID(ctx)) + " " + string(dispatch.MethodName(ctx))
			return dst, nil
		})})
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"meta","id":"q","_meta":{"traceId":"abc"}}`))
	if got != `{"traceId":"abc"} "q" meta` {
		t.Fatalf("handler saw %q", got)
	}
	e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"meta","id":1}`))
	if got != ` 1 meta` {
		t.Fatalf("without _meta handler saw %q", got)
	}
}

func TestNesting(t *testing.T) {
	nest := func(n int) string {
		return `{"jsonrpc":"2.0","method":"echo","params":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `,"id":1}`
	}
	e := newDemo(t, &dispatch.Options{MaxDepth: 10})
	// The envelope is depth 1, so params may nest 9 deep.
	if r := parseOne(t, e.Process(nil, []byte(nest(9)))); r.Error != nil {
		t.Fatalf("depth 10 rejected: %+v", r.Error)
	}
	r := parseOne(t, e.Process(nil, []byte(nest(10))))
	if r.Error == nil || r.Error.Code != -32700 || string(r.ID) != "null" || string(r.Error.Data) != `"nesting deeper than 10"` {
		t.Fatalf("depth 11: want -32700 naming the limit, got %+v", r)
	}
	d := newDemo(t, nil)
	if r := parseOne(t, d.Process(nil, []byte(nest(999)))); r.Error != nil {
		t.Fatalf("default limit: depth 1000 rejected: %+v", r.Error)
	}
	for _, in := range []string{nest(1000), strings.Repeat("[", 100000), strings.Repeat(`{"a":`, 100000)} {
		r := parseOne(t, d.Process(nil, []byte(in)))
		if r.Error == nil || r.Error.Code != -32700 || string(r.Error.Data) != `"nesting deeper than 1000"` {
			t.Fatalf("too deep (%d bytes): want -32700 naming the limit, got %+v", len(in), r.Error)
		}
	}
}

func TestRegister(t *testing.T) {
	e := dispatch.New(nil)
	defer e.Close()
	h := dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) { return dst, nil })
	f := func(err, want error) {
		t.Helper()
		if want == nil && err != nil || want != nil && !errorsIs(err, want) {
			t.Fatalf("got %v, want %v", err, want)
		}
	}
	f(e.Register("a", h), nil)
	f(e.Register("a", h), dispatch.ErrDuplicate)
	f(e.Register("rpc.discover", h), dispatch.ErrReserved)
	f(e.Register("", h), dispatch.ErrBadMethod)
	f(e.Register("b", nil), dispatch.ErrBadMethod)
	e.Freeze()
	f(e.Register("c", h), dispatch.ErrFrozen)
	f(e.Use(func(_ string, next dispatch.Handler) dispatch.Handler { return next }), dispatch.ErrFrozen)
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func TestReject(t *testing.T) {
	e := newDemo(t, nil)
	f := func(in, want string) {
		t.Helper()
		if got := string(newConn(e, nil, false).Reject(nil, []byte(in), encode.Code(-32001))); got != want {
			t.Fatalf("%s\n got %s\nwant %s", in, got, want)
		}
	}
	f(`{"jsonrpc":"2.0","method":"sleep","params":[1],"id":7}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"Server overloaded"}}`)
	f(`{"jsonrpc":"2.0","method":"sleep","params":[1]}`, ``)
	f(`[{"jsonrpc":"2.0","method":"update"},{"jsonrpc":"2.0","method":"sleep","id":"a"},{"jsonrpc":"2.0","result":1,"id":2}]`,
		`[{"jsonrpc":"2.0","id":"a","error":{"code":-32001,"message":"Server overloaded"}}]`)
	f(`[{"jsonrpc":"2.0","method":"update"}]`, ``)
	f(`{`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":"invalid JSON at offset 1"}}`)
}
