package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
)

// kinds has a member of every kind Typed binds.
type kinds struct {
	B     bool            `json:"b"`
	I     int             `json:"i"`
	I8    int8            `json:"i8"`
	U16   uint16          `json:"u16"`
	U64   uint64          `json:"u64"`
	F32   float32         `json:"f32"`
	F64   float64         `json:"f64"`
	S     string          `json:"s"`
	Bs    []byte          `json:"bs"`
	P     *int            `json:"p"`
	Arr   [2]int          `json:"arr"`
	Sl    []string        `json:"sl"`
	M     map[string]int  `json:"m"`
	A     any             `json:"a"`
	Raw   json.RawMessage `json:"raw"`
	T     upperText       `json:"t"`
	J     evenJSON        `json:"j"`
	N     point           `json:"n"`
	Skip  int             `json:"-"`
	NoTag int
}

// upperText is an encoding.TextUnmarshaler (upper-cases the text).
type upperText string

func (u *upperText) UnmarshalText(b []byte) error {
	*u = upperText(strings.ToUpper(string(b)))
	return nil
}

// evenJSON is a json.Unmarshaler that accepts only even integers.
type evenJSON int

func (v *evenJSON) UnmarshalJSON(b []byte) error {
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	if n%2 != 0 {
		return errors.New("odd")
	}
	*v = evenJSON(n)
	return nil
}

// ptrMarshal's MarshalJSON has a pointer receiver, so json.Marshal(v) of a
// value does not call it; valMarshal's has a value receiver.
type ptrMarshal struct{ A int }

func (*ptrMarshal) MarshalJSON() ([]byte, error) { return []byte(`"ptr"`), nil }

type valMarshal struct{ A int }

func (valMarshal) MarshalJSON() ([]byte, error) { return []byte(`"val"`), nil }

func kindsEngine(t *testing.T) *dispatch.Engine {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	mirror[kinds](e, "kinds")
	mirror[*kinds](e, "kindsp")
	mirror[int](e, "int")
	mirror[string](e, "string")
	mirror[[]int](e, "ints")
	mirror[[2]int](e, "pair")
	mirror[map[string]int](e, "map")
	mirror[any](e, "any")
	mirror[json.RawMessage](e, "raw")
	mirror[evenJSON](e, "even")
	mirror[[]byte](e, "bytes")
	mirror[ptrMarshal](e, "ptrm")
	mirror[valMarshal](e, "valm")
	return e
}

// TestTypedKinds compares Typed's binding with encoding/json's (refBind)
// on every kind, on wrong types, on missing and extra members and on too
// many and too few positional params.
func TestTypedKinds(t *testing.T) {
	e := kindsEngine(t)
	full := `{"b":true,"i":-7,"i8":-128,"u16":65535,"u64":18446744073709551615,"f32":1.5,"f64":-2.5e-300,` +
		`"s":"h\u00e9llo \ud83d\ude00","bs":"aGk=","p":3,"arr":[1,2],"sl":["x","y"],"m":{"a":1,"b":2},` +
		`"a":{"k":[1,"x",null,true]},"raw":{"z" : [1, 2]},"t":"abc","j":4,"n":{"X":1,"Y":2},"NoTag":9}`
	for _, params := range []string{
		full,
		``, `{}`, `[]`,
		`{"I":1,"S":"case-insensitive","notag":2}`, // encoding/json folds case
		`{"extra":1,"i":2,"more":{"deep":[1]}}`,    // unknown members are ignored
		`{"i":1,"i":2}`,                            // the last wins
		`{"i":null,"s":null,"p":null,"sl":null,"m":null,"a":null,"raw":null}`,
		`{"b":1}`, `{"i":"1"}`, `{"i":1.5}`, `{"i":1e2}`, `{"i8":128}`, `{"i8":-129}`, `{"u16":-1}`,
		`{"u16":65536}`, `{"u64":18446744073709551616}`, `{"f32":1e39}`, `{"s":1}`, `{"bs":"!!"}`,
		`{"bs":[1,2]}`, `{"arr":[1,2,3]}`, `{"arr":[1]}`, `{"arr":{}}`, `{"sl":"x"}`, `{"sl":[1]}`,
		`{"m":[]}`, `{"m":{"a":"x"}}`, `{"t":1}`, `{"j":3}`, `{"j":"4"}`, `{"n":[1,2]}`, `{"n":{"X":"1"}}`,
		`{"Skip":5,"-":6}`,
		`[true,1,2,3,4,5.5,6,"s","aGk=",7,[1,2],["a"],{"k":1},[null],{"r":1},"t",2,{"X":1},8]`,
		`[true]`, `[false,2]`, // too few leaves the rest zero
		`[true,1,2,3,4,5,6,"s","aGk=",7,[1,2],["a"],{"k":1},[null],{"r":1},"t",2,{"X":1},8,9]`, // too many
		`[1]`, `[true,"x"]`, `[true,1,300]`, `[null,null,null]`,
	} {
		checkRef[kinds](t, e, "kinds", []byte(params))
		checkRef[*kinds](t, e, "kindsp", []byte(params))
	}
	for _, c := range []struct{ method, params string }{
		{"int", `[5]`}, {"int", `[-0]`}, {"int", `[]`}, {"int", `[1,2]`}, {"int", `{"a":1}`}, {"int", `["1"]`},
		{"int", `[null]`}, {"int", ``}, {"string", `["x\n"]`}, {"string", `[1]`},
		{"ints", `[1,2,3]`}, {"ints", `[]`}, {"ints", `{"a":1}`}, {"ints", `["x"]`}, {"ints", `[1.5]`},
		{"ints", `[1,null]`}, {"ints", ``},
		{"pair", `[1]`}, {"pair", `[1,2,3]`}, {"pair", `{}`},
		{"map", `{"a":1,"b":-2}`}, {"map", `{}`}, {"map", `[1]`}, {"map", `{"a":true}`},
		{"any", `{"a":[1,{"b":null}],"c":1.5e300}`}, {"any", `[1,"x",null,false]`}, {"any", `[]`},
		{"raw", `[1, 2 ]`}, {"raw", `{ "a" : 1 }`}, {"raw", `[]`},
		{"even", `[2]`}, {"even", `[3]`}, {"even", `4`},
		{"bytes", `[1,2,255]`}, {"bytes", `[256]`},
		{"ptrm", `[1]`}, {"valm", `{"A":1}`}, // results encode as json.Marshal(r) does
	} {
		switch c.method {
		case "int":
			checkRef[int](t, e, c.method, []byte(c.params))
		case "string":
			checkRef[string](t, e, c.method, []byte(c.params))
		case "ints":
			checkRef[[]int](t, e, c.method, []byte(c.params))
		case "pair":
			checkRef[[2]int](t, e, c.method, []byte(c.params))
		case "map":
			checkRef[map[string]int](t, e, c.method, []byte(c.params))
		case "any":
			checkRef[any](t, e, c.method, []byte(c.params))
		case "raw":
			checkRef[json.RawMessage](t, e, c.method, []byte(c.params))
		case "even":
			if c.params != "4" { // not a structured value: the engine refuses it first
				checkRef[evenJSON](t, e, c.method, []byte(c.params))
			}
		case "bytes":
			checkRef[[]byte](t, e, c.method, []byte(c.params))
		case "ptrm":
			checkRef[ptrMarshal](t, e, c.method, []byte(c.params))
		case "valm":
			checkRef[valMarshal](t, e, c.method, []byte(c.params))
		}
	}
}

// TestTypedErrorData: -32602's data names the parameter: its index and
// field for positional params, the member for named ones, and the path
// inside it.
func TestTypedErrorData(t *testing.T) {
	e := kindsEngine(t)
	for _, c := range []struct{ method, params, data string }{
		{"kinds", `[true,"x"]`, `{"index":1,"param":"i","error":"cannot decode string into`},
		{"kinds", `{"i8":300}`, `"param":"i8"`},
		{"kinds", `{"n":{"X":"1"}}`, `{"param":"n","error":"X: `},
		{"kinds", `{"sl":["a",2]}`, `{"param":"sl","error":"[1]: `},
		{"kinds", "[" + strings.Repeat("null,", 19) + "null]", `{"index":19,"error":"too many params: want at most 19"}`},
		{"int", `[1,2]`, `"want an array of one value"`},
		{"ints", `[1,"x"]`, `{"error":"[1]: `},
	} {
		out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"`+c.method+`","params":`+c.params+`,"id":1}`))
		r := parseOne(t, out)
		if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(string(r.Error.Data), c.data) {
			t.Errorf("%s %s: got %s, want -32602 with data containing %s", c.method, c.params, out, c.data)
		}
	}
}

// TestTypedNullParams: "params": null is not structured, so the engine
// refuses it before any handler (-32600), typed or raw.
func TestTypedNullParams(t *testing.T) {
	e := kindsEngine(t)
	r := parseOne(t, e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"kinds","params":null,"id":1}`)))
	if r.Error == nil || r.Error.Code != -32600 {
		t.Fatalf("params null: got %+v, want -32600", r)
	}
}

// embedded structs flatten into the positional order, as encoding/json
// flattens them into the object.
type embedBase struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

type embedded struct {
	embedBase
	Extra bool `json:"extra"`
}

func TestTypedEmbedded(t *testing.T) {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	mirror[embedded](e, "emb")
	for params, want := range map[string]string{
		`[1,"a",true]`:                        `{"id":1,"name":"a","extra":true}`,
		`{"name":"b","id":2}`:                 `{"id":2,"name":"b","extra":false}`,
		`{"embedBase":{"id":3},"extra":true}`: `{"id":0,"name":"","extra":true}`,
	} {
		r := parseOne(t, e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"emb","params":`+params+`,"id":1}`)))
		if r.Error != nil || string(r.Result) != want {
			t.Errorf("%s: got %s %+v, want %s", params, r.Result, r.Error, want)
		}
	}
}

// TestTypedNoAlias: nothing a typed handler is given aliases the message,
// so a handler may keep its params after the call while the caller reuses
// its buffer.
func TestTypedNoAlias(t *testing.T) {
	type keep struct {
		S   string          `json:"s"`
		B   []byte          `json:"b"`
		Raw json.RawMessage `json:"raw"`
		Sl  []string        `json:"sl"`
	}
	var kept keep
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	if err := e.Register("keep", dispatch.Typed(func(_ context.Context, k keep) (bool, error) {
		kept = k
		return true, nil
	})); err != nil {
		t.Fatal(err)
	}
	msg := []byte(`{"jsonrpc":"2.0","method":"keep","params":{"s":"abc","b":"aGk=","raw":[1,2],"sl":["x"]},"id":1}`)
	if r := parseOne(t, e.Process(nil, msg)); r.Error != nil {
		t.Fatalf("%+v", r.Error)
	}
	for i := range msg {
		msg[i] = 'z'
	}
	if kept.S != "abc" || string(kept.B) != "hi" || string(kept.Raw) != "[1,2]" || len(kept.Sl) != 1 || kept.Sl[0] != "x" {
		t.Fatalf("kept params changed with the message: %+v", kept)
	}
}

// withChan is a type the compiled codecs refuse (a chan member), so Typed
// binds it with sonic: the documented fallback, with the same rules.
type withChan struct {
	A int      `json:"a"`
	B string   `json:"b"`
	C chan int `json:"-"`
	D func()
}

func TestTypedFallback(t *testing.T) {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	if err := e.Register("f", dispatch.Typed(func(_ context.Context, w withChan) (string, error) {
		return w.B + itoa(w.A), nil
	})); err != nil {
		t.Fatal(err)
	}
	if err := e.Register("bad", dispatch.Typed(func(context.Context, struct{}) (withChan, error) {
		return withChan{}, nil
	})); err != nil {
		t.Fatal(err)
	}
	for params, want := range map[string]string{
		`[4,"x"]`:         `"x4"`,
		`{"b":"y","a":5}`: `"y5"`,
		``:                `"0"`,
	} {
		msg := `{"jsonrpc":"2.0","method":"f","id":1`
		if params != "" {
			msg += `,"params":` + params
		}
		r := parseOne(t, e.Process(nil, []byte(msg+"}")))
		if r.Error != nil || string(r.Result) != want {
			t.Errorf("%s: got %s %+v, want %s", params, r.Result, r.Error, want)
		}
	}
	r := parseOne(t, e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"f","params":["x"],"id":1}`)))
	if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(string(r.Error.Data), `"param":"a"`) {
		t.Fatalf("fallback: wrong type: got %+v", r)
	}
	// A result the codecs cannot encode is -32603 naming the problem.
	r = parseOne(t, e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"bad","id":1}`)))
	if r.Error == nil || r.Error.Code != -32603 || !strings.Contains(string(r.Error.Data), "cannot encode result") {
		t.Fatalf("unencodable result: got %+v", r)
	}
}
