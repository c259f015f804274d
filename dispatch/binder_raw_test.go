package dispatch_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
)

// rawsOf writes the elements of rs exactly (quoted, so that whitespace
// shows), and whether rs is nil.
func rawsOf(rs []json.RawMessage) string {
	if rs == nil {
		return "nil"
	}
	q := make([]string, len(rs))
	for i, r := range rs {
		q[i] = strconv.Quote(string(r))
	}
	return "[" + strings.Join(q, " ") + "]"
}

// TestTypedRawSlice: a []json.RawMessage binds as encoding/json binds it,
// each element's bytes as they are in the message, on the direct path (R a
// string) and the frame path (R the slice itself, encoded), or both reject
// the params with -32602.
func TestTypedRawSlice(t *testing.T) {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	if err := e.Register("direct", dispatch.Typed(func(_ context.Context, rs []json.RawMessage) (string, error) {
		return rawsOf(rs), nil
	})); err != nil {
		t.Fatal(err)
	}
	mirror[[]json.RawMessage](e, "framed")
	f := func(params string) {
		t.Helper()
		var want []json.RawMessage
		ok := json.Unmarshal([]byte(params), &want) == nil
		for _, method := range []string{"direct", "framed"} {
			out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"`+method+`","id":1,"params":`+params+`}`))
			var r struct {
				Result json.RawMessage
				Error  *struct{ Code int }
			}
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("%s %s: response %s: %v", method, params, out, err)
			}
			switch {
			case !ok:
				if r.Error == nil || r.Error.Code != -32602 {
					t.Errorf("%s %s: encoding/json refuses, Typed answers %s", method, params, out)
				}
			case r.Error != nil:
				t.Errorf("%s %s: encoding/json binds %s, Typed answers %s", method, params, rawsOf(want), out)
			case method == "direct":
				if got := string(r.Result); got != string(refMarshal(rawsOf(want))) {
					t.Errorf("%s %s: bound %s, encoding/json %s", method, params, got, rawsOf(want))
				}
			default:
				if got := string(r.Result); got != string(refMarshal(want)) {
					t.Errorf("%s %s: answered %s, encoding/json %s", method, params, got, refMarshal(want))
				}
			}
		}
	}
	f(`[]`)
	f(`[ ]`)
	f(`[1]`)
	f(`[1,"a",{"b":[2,3]},null,true,[]]`)
	f("[ 1 , \"a b\" ,\n{ \"b\" : [ 2 ] } , null\t]")
	f(`[[1,[2,[3]]],{"x":{"y":"\"]"}}]`)
	f(`["\u00e9\\",-1.5e3]`)
	f(`{"a":1}`)
	f(`{}`)
}

// TestTypedRawSliceKept: the elements a handler is given are its own: kept
// across calls and the message's buffer being reused, and appending to one
// does not write over the next.
func TestTypedRawSliceKept(t *testing.T) {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	var kept [][]json.RawMessage
	if err := e.Register("keep", dispatch.Typed(func(_ context.Context, rs []json.RawMessage) (any, error) {
		rs[0] = append(rs[0], "XXXX"...) // must not reach rs[1]
		kept = append(kept, rs)
		return nil, nil
	})); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		msg := []byte(`{"jsonrpc":"2.0","method":"keep","params":[1,"two",[3]],"id":1}`)
		e.Process(nil, msg)
		for i := range msg {
			msg[i] = '9' // the caller reuses its buffer
		}
	}
	for i, rs := range kept {
		if got := rawsOf(rs); got != `["1XXXX" "\"two\"" "[3]"]` {
			t.Errorf("call %d: kept %s", i, got)
		}
	}
	if len(kept) != 3 || &kept[0][0][0] == &kept[1][0][0] {
		t.Fatalf("calls share their elements: %d kept", len(kept))
	}
}
