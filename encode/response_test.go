package encode_test

import (
	"encoding/json"
	"testing"

	"github.com/jetrpc/jetrpc/encode"
)

// raw turns a test literal into raw bytes; "<nil>" stands for a nil slice.
func raw(s string) []byte {
	if s == "<nil>" {
		return nil
	}
	return []byte(s)
}

// check compares got with want and that got is valid JSON.
func check(t *testing.T, got []byte, want string) {
	t.Helper()
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Errorf("not valid JSON: %s", got)
	}
}

func TestAppendResult(t *testing.T) {
	f := func(id, result, want string) {
		t.Helper()
		check(t, encode.AppendResult(nil, raw(id), raw(result)), want)
		// Appending keeps what dst held.
		got := encode.AppendResult([]byte("x"), raw(id), raw(result))
		if string(got) != "x"+want {
			t.Errorf("with prefix: got %s", got)
		}
	}
	f(`1`, `19`, `{"jsonrpc":"2.0","id":1,"result":19}`)
	f(`9007199254740993`, `true`, `{"jsonrpc":"2.0","id":9007199254740993,"result":true}`)
	f(`1e3`, `"ok"`, `{"jsonrpc":"2.0","id":1e3,"result":"ok"}`)
	f(`-0`, `[]`, `{"jsonrpc":"2.0","id":-0,"result":[]}`)
	f(`1.5`, `{}`, `{"jsonrpc":"2.0","id":1.5,"result":{}}`)
	f(`"a\u0041"`, `{"a":[1,2]}`, `{"jsonrpc":"2.0","id":"a\u0041","result":{"a":[1,2]}}`)
	f(`null`, `null`, `{"jsonrpc":"2.0","id":null,"result":null}`)
	f(`<nil>`, `1`, `{"jsonrpc":"2.0","id":null,"result":1}`)
	f(``, `1`, `{"jsonrpc":"2.0","id":null,"result":1}`)
	f(`2`, `<nil>`, `{"jsonrpc":"2.0","id":2,"result":null}`)
	f(`2`, ``, `{"jsonrpc":"2.0","id":2,"result":null}`)
}

func TestAppendResultStartEnd(t *testing.T) {
	dst := encode.AppendResultStart(nil, []byte(`"x"`))
	dst = append(dst, `[1,2,3]`...)
	check(t, encode.AppendResultEnd(dst), `{"jsonrpc":"2.0","id":"x","result":[1,2,3]}`)
	dst = encode.AppendResultStart(nil, nil)
	dst = append(dst, `null`...)
	check(t, encode.AppendResultEnd(dst), `{"jsonrpc":"2.0","id":null,"result":null}`)
}

func TestAppendError(t *testing.T) {
	f := func(id string, code encode.Code, msg, data, want string) {
		t.Helper()
		check(t, encode.AppendError(nil, raw(id), code, msg, raw(data)), want)
		e := &encode.Error{Code: code, Message: msg, Data: raw(data)}
		check(t, encode.AppendErrorValue(nil, raw(id), e), want)
	}
	f(`1`, -32602, "Invalid params", `<nil>`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}`)
	f(`"a\u0041"`, -32000, "boom", `{"limit":1000}`,
		`{"jsonrpc":"2.0","id":"a\u0041","error":{"code":-32000,"message":"boom","data":{"limit":1000}}}`)
	f(`<nil>`, -32700, "Parse error", ``,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	f(`7`, 42, "say \"hi\"\n<&>\u2028\xff", `"d"`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":42,"message":"say \"hi\"\n<&>\u2028\ufffd","data":"d"}}`)
	f(`1e3`, -2147483648, "", `null`,
		`{"jsonrpc":"2.0","id":1e3,"error":{"code":-2147483648,"message":"","data":null}}`)

	check(t, encode.AppendErrorValue(nil, []byte(`3`), nil),
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}`)
}

func TestAppendStdError(t *testing.T) {
	f := func(id string, code encode.Code, want string) {
		t.Helper()
		check(t, encode.AppendStdError(nil, raw(id), code), want)
	}
	f(`1`, encode.CodeParseError, `{"jsonrpc":"2.0","id":1,"error":{"code":-32700,"message":"Parse error"}}`)
	f(`<nil>`, encode.CodeInvalidRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`)
	f(`"m"`, encode.CodeMethodNotFound, `{"jsonrpc":"2.0","id":"m","error":{"code":-32601,"message":"Method not found"}}`)
	f(`-0`, encode.CodeInvalidParams, `{"jsonrpc":"2.0","id":-0,"error":{"code":-32602,"message":"Invalid params"}}`)
	f(`9007199254740993`, encode.CodeInternalError, `{"jsonrpc":"2.0","id":9007199254740993,"error":{"code":-32603,"message":"Internal error"}}`)
	f(`null`, encode.CodeServerError, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Server error"}}`)
	f(`1`, encode.CodeOverloaded, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Server overloaded"}}`)
	f(`1`, encode.CodeShuttingDown, `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Server shutting down"}}`)
	f(`1`, encode.CodeTimeout, `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"Request timed out"}}`)
	f(`1`, -32050, `{"jsonrpc":"2.0","id":1,"error":{"code":-32050,"message":"Server error"}}`)
	f(`1`, 12, `{"jsonrpc":"2.0","id":1,"error":{"code":12,"message":"Error"}}`)
}

// TestStdErrorConsistent checks every prebuilt response against the general
// writer and against Code.Err.
func TestStdErrorConsistent(t *testing.T) {
	for c := encode.Code(-32768); c <= -31990; c++ {
		id := []byte(`"x"`)
		want := encode.AppendError(nil, id, c, c.String(), nil)
		if got := encode.AppendStdError(nil, id, c); string(got) != string(want) {
			t.Errorf("code %d: AppendStdError %s, AppendError %s", c, got, want)
		}
		var e *encode.Error
		if err := c.Err(); !asError(err, &e) || e.Message != c.String() {
			t.Errorf("code %d: Err() = %v", c, err)
		}
		if got := encode.AppendErrorValue(nil, id, e); string(got) != string(want) {
			t.Errorf("code %d: AppendErrorValue %s, AppendError %s", c, got, want)
		}
	}
}

func asError(err error, e **encode.Error) bool {
	v, ok := err.(*encode.Error)
	*e = v
	return ok
}

func TestAppendRequest(t *testing.T) {
	f := func(id, method, params, want string) {
		t.Helper()
		check(t, encode.AppendRequest(nil, raw(id), method, raw(params)), want)
	}
	f(`1`, "subtract", `[42,23]`, `{"jsonrpc":"2.0","id":1,"method":"subtract","params":[42,23]}`)
	f(`"abc"`, "sum", `{"a":1}`, `{"jsonrpc":"2.0","id":"abc","method":"sum","params":{"a":1}}`)
	f(`1e3`, "get_data", `<nil>`, `{"jsonrpc":"2.0","id":1e3,"method":"get_data"}`)
	f(`<nil>`, "x", ``, `{"jsonrpc":"2.0","id":null,"method":"x"}`)
	f(`null`, "a\"b\\c\td", `[]`, `{"jsonrpc":"2.0","id":null,"method":"a\"b\\c\td","params":[]}`)
}

func TestAppendNotification(t *testing.T) {
	f := func(method, params, want string) {
		t.Helper()
		check(t, encode.AppendNotification(nil, method, raw(params)), want)
	}
	f("update", `[1,2,3,4,5]`, `{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}`)
	f("foobar", `<nil>`, `{"jsonrpc":"2.0","method":"foobar"}`)
	f("notify_hello", `{"a":[7]}`, `{"jsonrpc":"2.0","method":"notify_hello","params":{"a":[7]}}`)
	f("héllo\x00", ``, `{"jsonrpc":"2.0","method":"héllo\u0000"}`)
}

func TestAppendInt(t *testing.T) {
	f := func(n int64, want string) {
		t.Helper()
		if got := encode.AppendInt([]byte("x"), n); string(got) != "x"+want {
			t.Errorf("AppendInt(%d) = %s", n, got)
		}
	}
	f(0, "0")
	f(-32700, "-32700")
	f(9007199254740993, "9007199254740993")
	f(-9223372036854775808, "-9223372036854775808")
}

func TestBatch(t *testing.T) {
	// f assembles members (empty = notification) after a prefix, both ways.
	f := func(want string, members ...string) {
		t.Helper()
		dst := []byte("pre")
		start := len(dst)
		dst = encode.AppendBatchStart(dst)
		for _, m := range members {
			dst = encode.AppendBatchMember(dst, start, []byte(m))
		}
		if got := encode.FinishBatch(dst, start); string(got) != "pre"+want {
			t.Errorf("AppendBatchMember: got %s, want pre%s", got, want)
		}

		// Members written straight into dst, rolled back when empty.
		dst = []byte("pre")
		dst = encode.AppendBatchStart(dst)
		for _, m := range members {
			mark := len(dst)
			dst = encode.AppendBatchSep(dst, start)
			if m == "" {
				dst = dst[:mark]
				continue
			}
			dst = append(dst, m...)
		}
		if got := encode.FinishBatch(dst, start); string(got) != "pre"+want {
			t.Errorf("AppendBatchSep: got %s, want pre%s", got, want)
		}
	}
	r1 := `{"jsonrpc":"2.0","id":1,"result":7}`
	r2 := `{"jsonrpc":"2.0","id":2,"result":19}`
	f(``)
	f(``, ``, ``)
	f(`[`+r1+`]`, r1)
	f(`[`+r1+`,`+r2+`]`, r1, r2)
	f(`[`+r1+`,`+r2+`]`, ``, r1, ``, ``, r2, ``)

	check(t, encode.AppendBatchEnd(encode.AppendBatchStart(nil)), `[]`)
}

// TestAppendErrorObjectInPlace: an error object appended after
// AppendResultStart on the same buffer is moved into place.
func TestAppendErrorObjectInPlace(t *testing.T) {
	obj := `{"data":[1, 2],"code":-1,"message":"x\"y"}`
	for _, id := range []string{`1`, `"a\u0041"`, ``} {
		buf := encode.AppendResultStart(make([]byte, 0, 128), []byte(id))
		head := len(buf)
		buf = append(buf, obj...)
		got := encode.AppendErrorObject(buf[:0], []byte(id), buf[head:])
		want := string(encode.AppendErrorObject(nil, []byte(id), []byte(obj)))
		if string(got) != want || &got[0] != &buf[0] {
			t.Errorf("id %q: got %s, want %s in the same array", id, got, want)
		}
	}
}
