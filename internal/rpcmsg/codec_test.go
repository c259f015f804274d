package rpcmsg

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/marshal"
	"github.com/jetrpc/jetrpc/internal/unmarshal"
)

var errBad = errors.New("bad params")

type subArgs struct {
	Minuend    int `json:"minuend"`
	Subtrahend int `json:"subtrahend"`
}

type onePtr struct{ P *subArgs } // pointer-shaped: stored in the interface word

type custom struct{ n int }

func (c custom) MarshalJSON() ([]byte, error) { return []byte(`{"custom":true}`), nil }

// stdJSON is encoding/json's output with HTML escaping off.
func stdJSON(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestAppendRequest: the request and the notification are encode's, with
// params as encoding/json writes them (or left out for nil and null), for
// every shape of interface value: boxed, pointer, pointer-shaped.
func TestAppendRequest(t *testing.T) {
	a := &subArgs{42, 23}
	pa := &a
	var nilArgs *subArgs
	var nilMap map[string]int
	f := func(name string, params any) {
		t.Helper()
		var raw []byte
		if params != nil {
			if raw = stdJSON(t, params); string(raw) == "null" {
				raw = nil
			}
		}
		prefix := []byte("xx")
		got, err := AppendRequest(prefix, []byte("7"), "m<&>", params, errBad)
		want := encode.AppendRequest([]byte("xx"), []byte("7"), "m<&>", raw)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: AppendRequest = %s, %v; want %s", name, got, err, want)
		}
		got, err = AppendNotification([]byte("xx"), "n", params, errBad)
		want = encode.AppendNotification([]byte("xx"), "n", raw)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: AppendNotification = %s, %v; want %s", name, got, err, want)
		}
		m, err := MarshalParams(params, errBad)
		if err != nil || !bytes.Equal(m, raw) || (raw == nil) != (m == nil) {
			t.Errorf("%s: MarshalParams = %q, %v; want %q", name, m, err, raw)
		}
	}
	f("nil", nil)
	f("struct", subArgs{42, 23})
	f("*struct", a)
	f("**struct", pa)
	f("nil *struct", nilArgs)
	f("[2]int", [2]int{10, 20})
	f("*[2]int", &[2]int{10, 20})
	f("[]int", []int{1, 2, 3})
	f("[]any", []any{"client.double", []int{1}, nil, 1.5, "<&>"})
	f("map", map[string]any{"b": 1, "a": []string{"x"}})
	f("*map", &map[string]int{"k": 1})
	f("nil map", nilMap)
	f("struct of one pointer", onePtr{a})
	f("struct of one nil pointer", onePtr{})
	f("[1]*struct", [1]*subArgs{a})
	f("MarshalJSON", custom{})
	f("RawMessage", json.RawMessage(`{"a":1}`))
	f("*RawMessage", &json.RawMessage{'[', ']'})
}

// TestAppendRequestErrors: params that are not an array or object are bad,
// a value that cannot be encoded is an error; either way dst is unchanged.
func TestAppendRequestErrors(t *testing.T) {
	f := func(name string, params any, want error) {
		t.Helper()
		dst := append(make([]byte, 0, 256), "keep"...)
		got, err := AppendRequest(dst, []byte("1"), "m", params, errBad)
		if string(got) != "keep" || err == nil || (want != nil && !errors.Is(err, want)) {
			t.Errorf("%s: AppendRequest = %q, %v; want %q, %v", name, got, err, "keep", want)
		}
		got, err = AppendNotification(dst, "m", params, errBad)
		if string(got) != "keep" || err == nil || (want != nil && !errors.Is(err, want)) {
			t.Errorf("%s: AppendNotification = %q, %v; want %q, %v", name, got, err, "keep", want)
		}
		if m, err := MarshalParams(params, errBad); m != nil || err == nil {
			t.Errorf("%s: MarshalParams = %q, %v", name, m, err)
		}
	}
	n := 5
	f("int", 5, errBad)
	f("*int", &n, errBad)
	f("string", "scalar", errBad)
	f("[]byte (base64)", []byte("xyz"), errBad)
	f("bool", true, errBad)
	f("NaN", []float64{math.NaN()}, nil)
	f("chan (sonic's error)", []chan int{nil}, nil)
}

// TestParamsFallback: a type that internal/marshal rejects is encoded by
// sonic, whatever internal/marshal supports by now (the compile function
// is made to fail).
func TestParamsFallback(t *testing.T) {
	fail := func(t reflect.Type) (*marshal.Encoder, error) { return nil, errors.New("no") }
	f := func(v any) {
		t.Helper()
		pc := newParamsCodec(reflect.TypeOf(v), fail)
		if pc.enc != nil {
			t.Fatalf("%T: an encoder despite the failing Compile", v)
		}
		got, err := pc.append([]byte("x"), v)
		want, _ := sonic.Marshal(v)
		if err != nil || string(got) != "x"+string(want) {
			t.Errorf("%T: fallback = %s, %v; want x%s", v, got, err, want)
		}
	}
	f(subArgs{1, 2})
	f(&subArgs{1, 2})
	f(map[string]int{"a": 1})
	f(custom{})
	// What marshal rejects really goes to the fallback, once.
	type withChan struct {
		C chan int `json:",omitempty"`
	}
	if _, err := marshal.Compile(reflect.TypeFor[withChan]()); err != nil {
		pc := paramsCodecOf(reflect.TypeFor[withChan]())
		if pc.enc != nil || paramsCodecOf(reflect.TypeFor[withChan]()) != pc {
			t.Error("withChan: Compile fails but the codec has an encoder, or is not cached")
		}
		_, err := pc.append(nil, withChan{})
		_, want := sonic.Marshal(withChan{})
		if err == nil || err.Error() != want.Error() {
			t.Errorf("withChan: %v, want sonic's %v", err, want)
		}
	}
}

type strRes struct {
	S string `json:"s"`
}

// TestDecodeResult: results decode as encoding/json decodes them; strings
// do not alias the input; bad targets and bad JSON are errors.
func TestDecodeResult(t *testing.T) {
	var n int
	if err := DecodeResult([]byte(` 19 `), &n); err != nil || n != 19 {
		t.Errorf("int = %d, %v", n, err)
	}
	raw := []byte(`{"s":"hello","other":[1]}`)
	var s strRes
	if err := DecodeResult(raw, &s); err != nil || s.S != "hello" {
		t.Errorf("struct = %+v, %v", s, err)
	}
	copy(raw[6:], "XXXXX")
	if s.S != "hello" {
		t.Errorf("the string aliases the input: %q", s.S)
	}
	if err := DecodeResult([]byte(`null`), &s); err != nil || s.S != "hello" {
		t.Errorf("null: %+v, %v (want unchanged)", s, err)
	}
	var pp *strRes
	if err := DecodeResult([]byte(`{"s":"x"}`), &pp); err != nil || pp == nil || pp.S != "x" {
		t.Errorf("**struct = %+v, %v", pp, err)
	}
	var anyRes any
	if err := DecodeResult([]byte(`["hello",5]`), &anyRes); err != nil || !reflect.DeepEqual(anyRes, []any{"hello", 5.0}) {
		t.Errorf("any = %v, %v", anyRes, err)
	}
	var rm json.RawMessage
	if err := DecodeResult([]byte(`{"a":1}`), &rm); err != nil || string(rm) != `{"a":1}` {
		t.Errorf("RawMessage = %s, %v", rm, err)
	}
	if err := DecodeResult([]byte(`1`), nil); err != nil {
		t.Errorf("nil result: %v", err)
	}

	var invalid *json.InvalidUnmarshalError
	var nilPtr *int
	for _, target := range []any{n, nilPtr, s} {
		if err := DecodeResult([]byte(`1`), target); !errors.As(err, &invalid) {
			t.Errorf("target %T: %v, want *json.InvalidUnmarshalError", target, err)
		}
		if err := CheckResult(target); !errors.As(err, &invalid) {
			t.Errorf("CheckResult(%T): %v", target, err)
		}
	}
	var uerr *unmarshal.Error
	for _, in := range []string{`[1]`, `"a"`, `{`, ``, `1 2`} {
		if err := DecodeResult([]byte(in), &n); !errors.As(err, &uerr) {
			t.Errorf("%q into int: %v, want *unmarshal.Error", in, err)
		}
	}
}

type quoted struct {
	N int `json:"n,string"`
}

// TestResultFallback: a type that internal/unmarshal rejects is decoded by
// sonic (with a failing compile; and the ",string" option, which
// internal/unmarshal rejects today, for real).
func TestResultFallback(t *testing.T) {
	fail := func(t reflect.Type) (*unmarshal.Decoder, error) { return nil, errors.New("no") }
	rc := newResultCodec(reflect.TypeFor[*strRes](), fail)
	if rc.dec != nil {
		t.Fatal("a decoder despite the failing Compile")
	}
	var s strRes
	if err := rc.decode([]byte(`{"s":"x"}`), &s); err != nil || s.S != "x" {
		t.Errorf("fallback = %+v, %v", s, err)
	}
	if err := rc.decode([]byte(`[1]`), &s); err == nil {
		t.Error("fallback: an array into a struct, no error")
	}
	var q quoted
	if err := DecodeResult([]byte(`{"n":"5"}`), &q); err != nil || q.N != 5 {
		t.Errorf(",string = %+v, %v", q, err)
	}
}
