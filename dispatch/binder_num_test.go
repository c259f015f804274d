package dispatch_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
)

// celsius is a named element type: the fast binder fills it by its kind.
type celsius float64

// evenInt decodes through its own UnmarshalJSON (odd numbers are an
// error), so a []evenInt never takes the fast binder.
type evenInt int

func (v *evenInt) UnmarshalJSON(b []byte) error {
	n, err := strconv.Atoi(string(b))
	if err != nil || n%2 != 0 {
		return strconvErr(b)
	}
	*v = evenInt(n)
	return nil
}

func strconvErr(b []byte) error {
	return &strconv.NumError{Func: "evenInt", Num: string(b), Err: strconv.ErrSyntax}
}

// numParams are params that the fast binder of slices of numbers takes,
// and ones it must leave to the compiled decoder (each checked against
// encoding/json for every element type).
var numParams = func() []string {
	ps := []string{
		`[]`, `[ ]`, "[\n\t]", `[1]`, `[1,2,3,4,5]`, `[ 1 , -2 ,3 ]`, "[1,\n2,\r\n3]", `[0]`, `[-0]`,
		`[127]`, `[128]`, `[-128]`, `[-129]`, `[255]`, `[256]`, `[32767]`, `[32768]`, `[65535]`, `[65536]`,
		`[2147483647]`, `[2147483648]`, `[-2147483649]`, `[4294967295]`, `[4294967296]`,
		`[999999999999999999]`, `[-999999999999999999]`, `[9223372036854775807]`, `[9223372036854775808]`,
		`[-9223372036854775808]`, `[18446744073709551615]`, `[18446744073709551616]`,
		`[1.5]`, `[1.0]`, `[1e2]`, `[1E-2]`, `[-1.5e+3]`, `[0.1,0.2]`, `[1e39]`, `[1e400]`, `[-1e-400]`,
		`[123456789012345]`, `[1234567890123456]`, `[9007199254740993]`, `[16777217]`, `[0.30000000000000004]`,
		`[null]`, `[1,null]`, `["1"]`, `[1,"2"]`, `[true]`, `[[1]]`, `[{}]`, `[1,[2]]`, `{}`, `{"a":1}`,
		`[1,"a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t"]`,
		`["a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t"]`, `[-1,-2,-3]`,
	}
	for _, n := range []int{15, 16, 17, 32, 33, 100} {
		elems := make([]string, n)
		for i := range elems {
			elems[i] = strconv.Itoa(i*37 - 500)
		}
		ps = append(ps, "["+strings.Join(elems, ",")+"]", "[ "+strings.Join(elems, " , ")+" ]")
		elems[n-1] = "1.5"
		ps = append(ps, "["+strings.Join(elems, ",")+"]")
		elems[n-1] = `"x"`
		ps = append(ps, "["+strings.Join(elems, ",")+"]")
	}
	return ps
}()

// numEngine has, for each element type, a mirror (R is P: the frame path)
// and a direct mirror (R is a string: the direct path, P on the stack).
var numEngine = sync.OnceValue(func() *dispatch.Engine {
	e := dispatch.New(nil)
	mirror[[]int](e, "int")
	mirror[[]int8](e, "int8")
	mirror[[]int16](e, "int16")
	mirror[[]int32](e, "int32")
	mirror[[]int64](e, "int64")
	mirror[[]uint](e, "uint")
	mirror[[]uint16](e, "uint16")
	mirror[[]uint32](e, "uint32")
	mirror[[]uint64](e, "uint64")
	mirror[[]uintptr](e, "uintptr")
	mirror[[]float32](e, "float32")
	mirror[[]float64](e, "float64")
	mirror[[]celsius](e, "celsius")
	mirror[[]evenInt](e, "even")
	directMirror[[]int](e, "d-int")
	directMirror[[]int8](e, "d-int8")
	directMirror[[]uint16](e, "d-uint16")
	directMirror[[]uint64](e, "d-uint64")
	directMirror[[]float32](e, "d-float32")
	directMirror[[]float64](e, "d-float64")
	return e
})

// directMirror registers a typed handler for P that returns the encoding
// of its params as a JSON string (a string result: Typed's direct path).
func directMirror[P any](e *dispatch.Engine, name string) {
	if err := e.Register(name, dispatch.Typed(func(_ context.Context, p P) (string, error) {
		return string(refMarshal(p)), nil
	})); err != nil {
		panic(err)
	}
}

// checkDirect is checkRef for a directMirror method.
func checkDirect[P any](tb testing.TB, e *dispatch.Engine, method string, params []byte) {
	tb.Helper()
	msg := []byte(`{"jsonrpc":"2.0","method":"` + method + `","id":1,"params":` + string(params) + `}`)
	out := e.Process(nil, msg)
	var r struct {
		Result *string
		Error  *struct{ Code int }
	}
	if err := json.Unmarshal(out, &r); err != nil {
		tb.Fatalf("%s %s: response %s: %v", method, params, out, err)
	}
	want, ok := refBind[P](params)
	switch {
	case ok != (r.Error == nil):
		tb.Fatalf("%s %s: encoding/json binds: %v (%s), Typed says %s", method, params, ok, refMarshal(want), out)
	case !ok && r.Error.Code != -32602:
		tb.Fatalf("%s %s: rejected with %d, want -32602: %s", method, params, r.Error.Code, out)
	case ok && (r.Result == nil || *r.Result != string(refMarshal(want))):
		tb.Fatalf("%s %s: Typed bound %s, encoding/json %s", method, params, out, refMarshal(want))
	}
}

func checkNums(tb testing.TB, params []byte) {
	tb.Helper()
	e := numEngine()
	checkRef[[]int](tb, e, "int", params)
	checkRef[[]int8](tb, e, "int8", params)
	checkRef[[]int16](tb, e, "int16", params)
	checkRef[[]int32](tb, e, "int32", params)
	checkRef[[]int64](tb, e, "int64", params)
	checkRef[[]uint](tb, e, "uint", params)
	checkRef[[]uint16](tb, e, "uint16", params)
	checkRef[[]uint32](tb, e, "uint32", params)
	checkRef[[]uint64](tb, e, "uint64", params)
	checkRef[[]uintptr](tb, e, "uintptr", params)
	checkRef[[]float32](tb, e, "float32", params)
	checkRef[[]float64](tb, e, "float64", params)
	checkRef[[]celsius](tb, e, "celsius", params)
	checkRef[[]evenInt](tb, e, "even", params)
	checkDirect[[]int](tb, e, "d-int", params)
	checkDirect[[]int8](tb, e, "d-int8", params)
	checkDirect[[]uint16](tb, e, "d-uint16", params)
	checkDirect[[]uint64](tb, e, "d-uint64", params)
	checkDirect[[]float32](tb, e, "d-float32", params)
	checkDirect[[]float64](tb, e, "d-float64", params)
}

// TestTypedNumbers: a slice of numbers binds as encoding/json binds it
// (the fast binder, or the compiled decoder where it gives up), on the
// frame path and the direct one, or both reject the params with -32602.
func TestTypedNumbers(t *testing.T) {
	for _, p := range numParams {
		checkNums(t, []byte(p))
	}
}

// FuzzTypedNumbers is TestTypedNumbers on any params the engine accepts.
func FuzzTypedNumbers(f *testing.F) {
	for _, p := range numParams {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return // not one value: spliced into the message it could add members
		}
		ping := []byte(`{"jsonrpc":"2.0","method":"int","id":1,"params":` + string(params) + `}`)
		var r struct{ Error *struct{ Code int } }
		if json.Unmarshal(numEngine().Process(nil, ping), &r) != nil || r.Error != nil && r.Error.Code != -32602 {
			return // the scanner refuses these params before any handler
		}
		checkNums(t, params)
	})
}

// TestTypedNumbersKept: the slice a handler is given is its own: a handler
// that keeps it sees it unchanged by later calls and by the message's
// buffer being reused, on the direct path and the frame path.
func TestTypedNumbersKept(t *testing.T) {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	var kept [][]int
	keep := func(_ context.Context, xs []int) (any, error) { kept = append(kept, xs); return nil, nil }
	keepFramed := func(_ context.Context, xs []int) ([]int, error) { kept = append(kept, xs); return xs, nil }
	if err := e.Register("keep", dispatch.Typed(keep)); err != nil {
		t.Fatal(err)
	}
	if err := e.Register("keepFramed", dispatch.Typed(keepFramed)); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"keep", "keepFramed", "keep"} {
		msg := []byte(`{"jsonrpc":"2.0","method":"` + m + `","params":[1,2,3],"id":1}`)
		e.Process(nil, msg)
		for i := range msg {
			msg[i] = '9' // the caller reuses its buffer
		}
	}
	for i, xs := range kept {
		if len(xs) != 3 || xs[0] != 1 || xs[1] != 2 || xs[2] != 3 {
			t.Errorf("call %d: the kept slice is %v, want [1 2 3]", i, xs)
		}
	}
	if len(kept) != 3 || &kept[0][0] == &kept[2][0] {
		t.Fatalf("calls share a slice: %d kept", len(kept))
	}
}

// valueJSON has MarshalJSON on its value: the compiled encoder must write
// it, never the direct path's integer.
type valueJSON int

func (v valueJSON) MarshalJSON() ([]byte, error) {
	return []byte(`{"v":` + strconv.Itoa(int(v)) + `}`), nil
}

// ptrJSON has MarshalJSON on its pointer, which a result does not use
// (Typed encodes r as json.Marshal(r) does).
type ptrJSON int

func (v *ptrJSON) MarshalJSON() ([]byte, error) { return []byte(`"pointer"`), nil }

// textInt has MarshalText on its value: a JSON string.
type textInt uint8

func (v textInt) MarshalText() ([]byte, error) { return []byte("t" + strconv.Itoa(int(v))), nil }

// TestTypedDirectResults: the results the direct path appends itself
// (nil interfaces, bools, integers, strings, an echoed RawMessage) are
// what encoding/json writes, and the others (non-nil interfaces, values
// with their own marshalers, a RawMessage that is not the params) go
// through the compiled encoder with the same answer.
func TestTypedDirectResults(t *testing.T) {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	reg := func(name string, h dispatch.Handler) {
		if err := e.Register(name, h); err != nil {
			t.Fatal(err)
		}
	}
	type shape struct{ A int }
	var nilErr error
	results := map[string]any{
		"nil":    nil,
		"nilErr": nilErr,
		"any":    map[string]any{"k": []int{1}},
		"bool":   true,
		"false":  false,
		"int":    -42,
		"int8":   int8(-128),
		"int16":  int16(32767),
		"int32":  int32(-7),
		"int64":  int64(-9223372036854775808),
		"uint":   uint(7),
		"uint8":  uint8(255),
		"uint16": uint16(65535),
		"uint32": uint32(4294967295),
		"uint64": uint64(18446744073709551615),
		"uptr":   uintptr(12),
		"string": "a \"quoted\" <tag> & caf\u00e9 \u2028 \x01",
		"value":  valueJSON(3),
		"ptr":    ptrJSON(4),
		"text":   textInt(5),
		"struct": shape{A: 1},
	}
	direct := func(name string, v any) dispatch.Handler {
		switch x := v.(type) {
		case nil:
			if name == "nilErr" {
				return dispatch.Typed(func(context.Context, []int) (error, error) { return nilErr, nil })
			}
			return dispatch.Typed(func(context.Context, []int) (any, error) { return nil, nil })
		case map[string]any:
			return dispatch.Typed(func(context.Context, []int) (any, error) { return x, nil })
		case bool:
			return dispatch.Typed(func(context.Context, []int) (bool, error) { return x, nil })
		case int:
			return dispatch.Typed(func(context.Context, []int) (int, error) { return x, nil })
		case int8:
			return dispatch.Typed(func(context.Context, []int) (int8, error) { return x, nil })
		case int16:
			return dispatch.Typed(func(context.Context, []int) (int16, error) { return x, nil })
		case int32:
			return dispatch.Typed(func(context.Context, []int) (int32, error) { return x, nil })
		case int64:
			return dispatch.Typed(func(context.Context, []int) (int64, error) { return x, nil })
		case uint:
			return dispatch.Typed(func(context.Context, []int) (uint, error) { return x, nil })
		case uint8:
			return dispatch.Typed(func(context.Context, []int) (uint8, error) { return x, nil })
		case uint16:
			return dispatch.Typed(func(context.Context, []int) (uint16, error) { return x, nil })
		case uint32:
			return dispatch.Typed(func(context.Context, []int) (uint32, error) { return x, nil })
		case uint64:
			return dispatch.Typed(func(context.Context, []int) (uint64, error) { return x, nil })
		case uintptr:
			return dispatch.Typed(func(context.Context, []int) (uintptr, error) { return x, nil })
		case string:
			return dispatch.Typed(func(context.Context, []int) (string, error) { return x, nil })
		case valueJSON:
			return dispatch.Typed(func(context.Context, []int) (valueJSON, error) { return x, nil })
		case ptrJSON:
			return dispatch.Typed(func(context.Context, []int) (ptrJSON, error) { return x, nil })
		case textInt:
			return dispatch.Typed(func(context.Context, []int) (textInt, error) { return x, nil })
		case shape:
			return dispatch.Typed(func(context.Context, []int) (shape, error) { return x, nil })
		}
		t.Fatalf("no handler for %T", v)
		return nil
	}
	for name, v := range results {
		reg(name, direct(name, v))
	}
	// A RawMessage result: the params echoed (compacted, not checked
	// again), anything else through the encoder (checked and compacted).
	reg("echo", dispatch.Typed(func(_ context.Context, p json.RawMessage) (json.RawMessage, error) { return p, nil }))
	reg("other", dispatch.Typed(func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{ "other" : [1, 2] }`), nil
	}))
	reg("bad", dispatch.Typed(func(_ context.Context, p json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"bad"`), nil
	}))
	for name, v := range results {
		r := parseOne(t, e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"`+name+`","params":[1,2],"id":1}`)))
		if want := refMarshal(v); r.Error != nil || string(r.Result) != string(want) {
			t.Errorf("%s: result %s (error %+v), want %s", name, r.Result, r.Error, want)
		}
	}
	for _, c := range []struct{ method, params, want string }{
		{"echo", `{ "a" : [1, "x y"] }`, `{"a":[1,"x y"]}`},
		{"other", `[1]`, `{"other":[1,2]}`},
	} {
		r := parseOne(t, e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"`+c.method+`","params":`+c.params+`,"id":1}`)))
		if r.Error != nil || string(r.Result) != c.want {
			t.Errorf("%s %s: result %s (error %+v), want %s", c.method, c.params, r.Result, r.Error, c.want)
		}
	}
	if r := parseOne(t, e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"bad","params":[1],"id":1}`))); r.Error == nil || r.Error.Code != -32603 {
		t.Errorf("an invalid RawMessage result: %+v, want -32603", r)
	}
}
