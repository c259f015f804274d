package unmarshal

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type inner struct {
	X int    `json:"x"`
	S string `json:"s"`
}

type Base struct {
	ID   int
	Note string `json:"note"`
}

type kinds struct {
	Base
	B     bool            `json:"b"`
	I     int             `json:"i"`
	I8    int8            `json:"i8"`
	I16   int16           `json:"i16"`
	I32   int32           `json:"i32"`
	I64   int64           `json:"i64"`
	U     uint            `json:"u"`
	U8    uint8           `json:"u8"`
	U16   uint16          `json:"u16"`
	U32   uint32          `json:"u32"`
	U64   uint64          `json:"u64"`
	F32   float32         `json:"f32"`
	F64   float64         `json:"f64"`
	S     string          `json:"s"`
	Bs    []byte          `json:"bs"`
	P     *int            `json:"p"`
	PS    *inner          `json:"ps"`
	In    inner           `json:"in"`
	L     []string        `json:"l"`
	A     [3]int          `json:"a"`
	M     map[string]int  `json:"m"`
	MI    map[int]string  `json:"mi"`
	Any   any             `json:"any"`
	Raw   json.RawMessage `json:"raw"`
	Skip  int             `json:"-"`
	Dash  int             `json:"-,"`
	priv  int
	NoTag int
	LS    []inner           `json:"ls"`
	MP    map[string]*inner `json:"mp"`
}

func TestKinds(t *testing.T) {
	ok := func(in string) { t.Helper(); check[kinds](t, in, false) }
	bad := func(in string) { t.Helper(); check[kinds](t, in, true) }
	ok(`{}`)
	ok(`null`)
	ok(` {"b":true,"i":-42,"i8":-128,"i16":32767,"i32":-1,"i64":9223372036854775807} `)
	ok(`{"u":0,"u8":255,"u16":65535,"u32":4294967295,"u64":18446744073709551615}`)
	ok(`{"f32":3.4e38,"f64":-1.5e-300,"i":-0,"f64":-0}`)
	ok(`{"s":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00","bs":"aGVsbG8="}`)
	ok(`{"s":"\ud800x\udc00\ud800\u0041 ` + "\xff\xfe\xed\xa0\x80" + ` é"}`)
	ok(`{"bs":"","l":[],"m":{},"any":{}}`)
	ok(`{"bs":[1,2,255]}`)
	ok(`{"p":7,"ps":{"x":1},"in":{"x":2,"s":"y","zz":[1,{"a":null}]}}`)
	ok(`{"p":null,"ps":null,"l":null,"m":null,"bs":null,"any":null,"in":null,"i":null,"s":null}`)
	ok(`{"l":["a","b"],"a":[1,2],"ls":[{"x":1},{"S":"q"}]}`)
	ok(`{"a":[1,2,3,4,5]}`)
	ok(`{"m":{"a":1,"b":2,"a":3},"mi":{"-1":"x","7":"y"},"mp":{"k":{"x":3},"n":null}}`)
	ok(`{"any":[1,"a",true,null,{"k":[1.5]}],"raw":{"a": [1, 2]}}`)
	ok(`{"ID":5,"id":6,"NOTE":"n","Note":"m","notag":3,"NoTag":4}`)
	ok(`{"Skip":1,"-":2,"priv":3,"unknown":{"deep":[[[]]]}}`)
	ok(`{"\u0062":true,"\u0049":3}`)
	bad(`{"i":1.5}`)
	bad(`{"i":1.0}`)
	bad(`{"i8":128}`)
	bad(`{"u":-1}`)
	bad(`{"u":-0}`)
	bad(`{"i64":9223372036854775808}`)
	bad(`{"f32":3.5e38}`)
	bad(`{"f64":1e400}`)
	bad(`{"b":1}`)
	bad(`{"s":1}`)
	bad(`{"i":"1"}`)
	bad(`{"l":{}}`)
	bad(`{"a":"x"}`)
	bad(`{"in":[]}`)
	bad(`{"bs":"!!"}`)
	bad(`{"mi":{"x":"y"}}`)
	bad(`[]`)
	bad(`{"i":01}`)
	bad(`{"s":"\x"}`)
	bad(`{"s":"a` + "\n" + `"}`)
	bad(`{"i":1,}`)
	bad(`{"i":1} x`)
	bad(`{"i"`)
	bad(``)
	bad(`{"any":[1,]}`)
	bad(`{"raw":tru}`)
}

func TestIntExponent(t *testing.T) {
	// encoding/json rejects 1e2 into an int (strconv.ParseInt).
	check[int](t, `1e2`, true)
	check[int](t, `-0`, false)
	check[uint8](t, `255`, false)
	check[uint8](t, `256`, true)
	check[float32](t, `1e-50`, false)
}

func TestNullLeavesValue(t *testing.T) {
	d, _ := Compile(reflect.TypeFor[kinds]())
	v := kinds{I: 3, S: "x", A: [3]int{1, 2, 3}}
	v.P = new(int)
	if err := DecodeInto(d, []byte(`{"i":null,"s":null,"a":null,"p":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.I != 3 || v.S != "x" || v.A != [3]int{1, 2, 3} || v.P != nil {
		t.Fatalf("%+v", v)
	}
	// An array is zeroed past the decoded elements; a pointer is reused.
	p := v.P
	v.P = new(int)
	p = v.P
	if err := DecodeInto(d, []byte(`{"a":[9],"p":5}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != [3]int{9, 0, 0} || v.P != p || *p != 5 {
		t.Fatalf("%+v", v)
	}
}

func TestErrorPath(t *testing.T) {
	f := func(in, path string) {
		t.Helper()
		d, _ := Compile(reflect.TypeFor[kinds]())
		var v kinds
		err := DecodeInto(d, []byte(in), &v)
		var e *Error
		if !errors.As(err, &e) || e.Path != path {
			t.Fatalf("%s: err %v, want path %q", in, err, path)
		}
	}
	f(`{"i":"x"}`, "i")
	f(`{"in":{"x":true}}`, "in.x")
	f(`{"ls":[{},{"x":"no"}]}`, "ls[1].x")
	f(`{"m":{"k":"v"}}`, "m.k")
	f(`[1]`, "")
}

type recursive struct {
	V    int
	Next *recursive
	Kids []recursive
}

type textU struct{ T time.Time }

type unsupported struct{ C chan int }

func TestTypes(t *testing.T) {
	check[recursive](t, `{"V":1,"Next":{"V":2,"Next":{"V":3}},"Kids":[{"V":4}]}`, false)
	check[textU](t, `{"T":"2024-01-02T03:04:05Z"}`, false)
	check[textU](t, `{"T":"nope"}`, true)
	check[[]int](t, `[1, 2 ,3]`, false)
	check[map[string][]int](t, `{"a":[1],"b":[]}`, false)
	check[any](t, ` {"a":[1e2,-0,"x"]} `, false)
	check[any](t, `1e400`, true)
	check[[2]bool](t, `[true]`, false)
	check[*int](t, `null`, false)
	check[json.RawMessage](t, `[ 1 ]`, false)
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	check[any](t, deep, true)
	check[[]any](t, deep, true)
	for _, typ := range []reflect.Type{reflect.TypeFor[unsupported](), reflect.TypeFor[complex128](),
		reflect.TypeFor[func()](), reflect.TypeFor[error](), reflect.TypeFor[map[[2]int]int]()} {
		if _, err := Compile(typ); err == nil {
			t.Errorf("Compile %v: no error", typ)
		}
	}
}

func TestFields(t *testing.T) {
	type pair struct {
		Minuend    int `json:"minuend"`
		Subtrahend int `json:"subtrahend"`
		x          int
	}
	d, err := Compile(reflect.TypeFor[pair]())
	if err != nil {
		t.Fatal(err)
	}
	var v pair
	for k, f := range d.Fields() {
		if err := f.Decoder.Decode([]byte([]string{"42", "23"}[k]), unsafeAdd(&v, f.Offset)); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.Fields()) != 2 || d.Fields()[0].Name != "minuend" || v.Minuend != 42 || v.Subtrahend != 23 {
		t.Fatalf("%+v %+v", d.Fields(), v)
	}
}
