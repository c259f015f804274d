package unmarshal

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"testing"
)

// quotedJSON gets the content of a ",string" value in UnmarshalJSON.
type quotedJSON int

func (q *quotedJSON) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*q = -1
		return nil
	}
	n, err := strconv.Atoi(string(b))
	*q = quotedJSON(n * 10)
	return err
}

// quotedText: under ",string" the content must itself be a quoted string.
type quotedText int

func (q *quotedText) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		return errors.New("empty")
	}
	*q = quotedText(len(b))
	return nil
}

type namedIntPtr *int

type quotedFields struct {
	I   int         `json:"i,string"`
	I8  int8        `json:"i8,string"`
	U   uint16      `json:"u,string"`
	UP  uintptr     `json:",string"`
	F   float64     `json:"f,string"`
	F32 float32     `json:"f32,string"`
	B   bool        `json:"b,string"`
	S   string      `json:"s,string"`
	N   json.Number `json:"n,string"`
	PI  *int        `json:"pi,string"`
	PS  *string     `json:"ps,string"`
	PB  *bool       `json:",string"`
	PPI **int       `json:"ppi,string"` // not quotable: decoded plainly
	NI  MyInt       `json:"ni,string"`
	QJ  quotedJSON  `json:"qj,string"`
	QT  quotedText  `json:"qt,string"`
	PQT *quotedText `json:"pqt,string"`
	L   []int       `json:"l,string"`   // ignored
	St  inner       `json:"st,string"`  // ignored
	Any any         `json:"any,string"` // ignored
	NP  namedIntPtr `json:"np,string"`  // named pointer: ignored
	X   int         `json:"x,omitempty,string"`
}

func TestQuoted(t *testing.T) {
	ok := func(in string) { t.Helper(); check[quotedFields](t, in, false) }
	bad := func(in string) { t.Helper(); check[quotedFields](t, in, true) }
	ok(`{"i":"-42","i8":"127","u":"65535","UP":"7","f":"1.5e3","f32":"-0.25","b":"true","s":"\"x\""}`)
	ok(`{"i":"007","f":"-Inf","f32":"-infinity","f":"0x1p-2","b":"false","x":"3"}`)
	ok(`{"i":null,"s":null,"pi":null,"ps":null,"PB":null,"b":null,"n":null}`)
	ok(`{"i":"null","s":"null","b":"null","f":"null","n":"null","pi":"null","ps":"null","PB":"null"}`)
	ok(`{"pi":"5","ps":"\"p\"","PB":"true","ppi":3,"ni":"9"}`)
	ok(`{"s":"\"a\\'b\\u00e9\\n\"","s":"\"\"","s":"\"\\ud800\""}`)
	ok(`{"s":"\"\u00e9\"","ps":"\"` + "\xff" + `\""}`)
	ok(`{"n":"12","n":"-0.5e2","n":"12x","n":"-","n":"\"1e5\""}`)
	ok(`{"qj":"4","qj":null,"qt":"\"abc\"","qt":"null","pqt":"\"ab\"","pqt":"null"}`)
	ok(`{"l":[1,2],"st":{"x":1},"any":5,"np":7}`)
	ok(`{"I":"1","PI":"2"}`)
	bad(`{"i":1}`)
	bad(`{"i":true}`)
	bad(`{"i":[]}`)
	bad(`{"i":{}}`)
	bad(`{"i":""}`)
	bad(`{"i":" 1"}`)
	bad(`{"i":"1 "}`)
	bad(`{"i":"+1"}`)
	bad(`{"i":"1.0"}`)
	bad(`{"i":"1e2"}`)
	bad(`{"i8":"128"}`)
	bad(`{"u":"-1"}`)
	bad(`{"u":"65536"}`)
	bad(`{"f":"NaN"}`)
	bad(`{"f":"Inf"}`)
	bad(`{"f":"1e400"}`)
	bad(`{"f32":"1e39"}`)
	ok(`{"f":"1_0"}`) // strconv.ParseFloat takes it
	bad(`{"b":"1"}`)
	bad(`{"b":"True"}`)
	bad(`{"b":"t"}`)
	bad(`{"b":true}`)
	bad(`{"s":"x"}`)
	bad(`{"s":"1"}`)
	bad(`{"s":"\"x"}`)
	bad(`{"s":"\"a\"b\""}`)
	bad(`{"s":"\"\\x\""}`)
	bad(`{"s":"\"\\u12\""}`)
	bad(`{"s":"\"a\\\""}`)
	bad(`{"s":"\"\n\""}`)
	bad(`{"s":"true"}`)
	bad(`{"i":"nul"}`)
	bad(`{"pi":"nul"}`)
	bad(`{"pi":"x"}`)
	bad(`{"n":"true"}`)
	bad(`{"n":"\"x\""}`)
	bad(`{"n":"x"}`)
	bad(`{"qj":"x"}`)
	bad(`{"qt":"abc"}`)
	bad(`{"qt":"\"\""}`)
	bad(`{"qt":"1"}`)
	bad(`{"pqt":"nope"}`)
	bad(`{"i":"1"`)
	bad(`{"i":"\x"}`)
}

type QEmb struct {
	Q int `json:"q,string"`
}

type quotedEmbedded struct {
	*QEmb
	R float64 `json:"r,string"`
}

func TestQuotedEmbeddedAndFields(t *testing.T) {
	check[quotedEmbedded](t, `{"q":"5","r":"1.5"}`, false)
	check[quotedEmbedded](t, `{"q":null}`, false)
	check[quotedEmbedded](t, `{"q":5}`, true)
	// Positional binding through Fields applies the option too.
	d, err := Compile(reflect.TypeFor[quotedEmbedded]())
	if err != nil {
		t.Fatal(err)
	}
	var v quotedEmbedded
	for k, f := range d.Fields() {
		if err := f.Decoder.Decode([]byte([]string{`"7"`, `"2.5"`}[k]), unsafeAdd(&v, f.Offset)); err != nil {
			t.Fatal(err)
		}
	}
	if v.QEmb == nil || v.Q != 7 || v.R != 2.5 {
		t.Fatalf("%+v", v)
	}
}
