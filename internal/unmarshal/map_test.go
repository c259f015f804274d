package unmarshal

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// textKey is a TextUnmarshaler map key ("a:b").
type textKey struct{ A, B string }

func (k *textKey) UnmarshalText(b []byte) error {
	a, rest, ok := strings.Cut(string(b), ":")
	if !ok {
		return errors.New("textKey: no colon")
	}
	k.A, k.B = a, rest
	return nil
}

// bothKey has both methods: encoding/json calls UnmarshalJSON with the
// quoted key.
type bothKey string

func (k *bothKey) UnmarshalText(b []byte) error { *k = bothKey("text:" + string(b)); return nil }
func (k *bothKey) UnmarshalJSON(b []byte) error { *k = bothKey("json:" + string(b)); return nil }

// intText is an integer key with UnmarshalText, which wins over the kind.
type intText int

func (k *intText) UnmarshalText(b []byte) error { *k = intText(len(b)); return nil }

type strKey string

// bigKey is a TextUnmarshaler key larger than 128 bytes: the map stores it
// indirectly.
type bigKey struct {
	Pad [20]int
	S   string
}

func (k *bigKey) UnmarshalText(b []byte) error { k.S, k.Pad[19] = string(b), len(b); return nil }

type big struct {
	A [20]int
	S string
}

type maps struct {
	SI  map[string]int             `json:"si"`
	NS  map[strKey]string          `json:"ns"`
	I8  map[int8]string            `json:"i8"`
	I   map[int]int                `json:"i"`
	U16 map[uint16]bool            `json:"u16"`
	UP  map[uintptr]int            `json:"up"`
	U64 map[uint64]int             `json:"u64"`
	TK  map[textKey]int            `json:"tk"`
	BK  map[bothKey]int            `json:"bk"`
	IT  map[intText]string         `json:"it"`
	TM  map[time.Time]int          `json:"tm"`
	SB  map[string]big             `json:"sb"`
	IB  map[int16]big              `json:"ib"`
	SP  map[string]*inner          `json:"sp"`
	SL  map[string][]int           `json:"sl"`
	SM  map[string]map[string]int  `json:"sm"`
	SA  map[string]any             `json:"sa"`
	SR  map[string]json.RawMessage `json:"sr"`
	SS  map[string]inner           `json:"ss"`
	BK2 map[bigKey]*big            `json:"bk2"`
}

func TestMaps(t *testing.T) {
	ok := func(in string) { t.Helper(); check[maps](t, in, false) }
	bad := func(in string) { t.Helper(); check[maps](t, in, true) }
	ok(`{"si":{},"ns":null,"i8":{},"tk":{},"sb":{}}`)
	ok(`{"si":{"a":1,"b":2,"a":3,"":4,"\u00e9\n":5,"k\"":6}}`)
	ok(`{"ns":{"x":"y","z":null}}`)
	ok(`{"i8":{"-128":"lo","127":"hi","+5":"plus","007":"z","-0":"m"}}`)
	ok(`{"i":{"9223372036854775807":1,"-9223372036854775808":2,"\u0031":3}}`)
	ok(`{"u16":{"65535":true,"0":false},"up":{"18446744073709551615":1}}`)
	bad(`{"u64":{"+3":3}}`)
	ok(`{"tk":{"a:b":1,"c:":2,"\u0078:y":3}}`)
	ok(`{"bk":{"a":1,"b\u00e9":2},"it":{"abc":"x","12":"y"}}`)
	ok(`{"tm":{"2024-01-02T03:04:05Z":1}}`)
	ok(`{"sb":{"a":{"A":[1,2],"S":"s"},"b":null,"a":{"S":"t"}},"ib":{"-3":{"S":"u"},"4":{}}}`)
	ok(`{"sp":{"a":{"x":1},"b":null},"sl":{"a":[1,2],"b":[],"c":null},"sm":{"a":{"b":1},"c":null}}`)
	ok(`{"sa":{"a":[1,"x",null],"b":{"c":true}},"sr":{"a":[1, 2],"b":null,"c":"s"}}`)
	ok(`{"ss":{"a":{"x":1},"a":{"s":"y"}}}`) // a duplicate key's value replaces, not merges
	ok(`{"bk2":{"a":{"S":"x"},"bb":null,"a":{"A":[1]}}}`)
	bad(`{"si":[]}`)
	bad(`{"si":"x"}`)
	bad(`{"si":{"a":"x"}}`)
	bad(`{"si":{"a":1,}}`)
	bad(`{"si":{"a" 1}}`)
	bad(`{"si":{"a":1}`)
	bad(`{"i8":{"128":"x"}}`)
	bad(`{"i8":{"-129":"x"}}`)
	bad(`{"i8":{" 1":"x"}}`)
	bad(`{"i8":{"1.0":"x"}}`)
	bad(`{"i8":{"":"x"}}`)
	bad(`{"i8":{"0x1":"x"}}`)
	bad(`{"u16":{"65536":true}}`)
	bad(`{"u16":{"-1":true}}`)
	bad(`{"u16":{"-0":true}}`)
	bad(`{"tk":{"nocolon":1}}`)
	bad(`{"tm":{"yesterday":1}}`)
	bad(`{"sb":{"a":{"A":[1,"x"]}}}`)
	for _, typ := range []reflect.Type{reflect.TypeFor[map[float64]int](), reflect.TypeFor[map[bool]int](),
		reflect.TypeFor[map[[2]int]int](), reflect.TypeFor[map[*int]int]()} {
		if _, err := Compile(typ); err == nil {
			t.Errorf("Compile %v: no error", typ)
		}
	}
}

// TestMapReuse: an existing map is added to; an existing element is
// replaced by a fresh value, as encoding/json does.
func TestMapReuse(t *testing.T) {
	d, err := Compile(reflect.TypeFor[map[string]*inner]())
	if err != nil {
		t.Fatal(err)
	}
	keep := &inner{X: 5, S: "keep"}
	got := map[string]*inner{"a": keep, "b": {X: 1}}
	want := map[string]*inner{"a": {X: 5, S: "keep"}, "b": {X: 1}}
	in := `{"a":{"s":"new"},"c":{"x":3}}`
	if err := DecodeInto(d, []byte(in), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || *keep != (inner{X: 5, S: "keep"}) {
		t.Fatalf("got %v, want %v, kept %v", got, want, *keep)
	}
	var n map[string]*inner
	if err := DecodeInto(d, []byte(`null`), &got); err != nil || !reflect.DeepEqual(got, n) {
		t.Fatalf("null: %v %v", got, err)
	}
}

func TestMapErrorPath(t *testing.T) {
	d, _ := Compile(reflect.TypeFor[maps]())
	var v maps
	var e *Error
	err := DecodeInto(d, []byte(`{"sm":{"k\u00e9":{"b":"x"}}}`), &v)
	if !errors.As(err, &e) || e.Path != "sm.ké.b" {
		t.Fatalf("err %v", err)
	}
}
