package unmarshal

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecode checks, for every input, that Decode and encoding/json.Unmarshal
// into fresh values of a fixed set of types both fail or give equal values:
// the kinds, maps with string, integer and TextUnmarshaler keys, ",string"
// fields, embedded (pointer) structs, RawMessage, Number and the
// Unmarshaler types.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `[1,2]`, `{"i":1,"s":"\u00e9","l":["a"],"m":{"a":1}}`,
		`{"in":{"x":1},"ps":{"s":"y"},"a":[1,2,3,4],"bs":"aGk=","any":[1,{"a":null}]}`,
		`{"f32":1.5e3,"u8":255,"i8":-128,"p":3,"ID":1,"NOTE":"x","mi":{"-3":"z"}}`, `"\ud83d\ude00"`,
		`{"si":{"a":1},"i8":{"-1":"x"},"tk":{"a:b":1},"bk":{"k":2},"it":{"7":"x"},"sb":{"a":{"S":"s"}},"ib":{"3":{}}}`,
		`{"i":"-4","f":"1e3","b":"true","s":"\"x\"","n":"12","pi":"null","qj":"3","qt":"\"ab\"","PB":"false"}`,
		`{"y":"a","Z":1,"B":2,"X":3,"F":4,"D":5,"MyInt":6,"named":{"A":7},"C":8}`,
		`{"r":{"a":[1]},"pr":null,"lr":[1,"x"],"mr":{"k":null},"n":-1.5e3,"pn":"7","ln":[1]}`,
		`{"R":[1],"PR":null,"LR":[null],"MR":{"k":{}},"TS":"x","TM":null,"TT":"y","LT":["z"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzOne[kinds](t, in)
		fuzzOne[[]inner](t, in)
		fuzzOne[map[string]any](t, in)
		fuzzOne[recursive](t, in)
		fuzzOne[[2]float64](t, in)
		fuzzOne[string](t, in)
		fuzzOne[maps](t, in)
		fuzzOne[quotedFields](t, in)
		fuzzOne[embedded](t, in)
		fuzzOne[rawNumber](t, in)
		fuzzOne[methods](t, in)
		fuzzOne[map[textKey]json.RawMessage](t, in)
	})
}

func fuzzOne[T any](t *testing.T, in []byte) {
	d, err := Compile(reflect.TypeFor[T]())
	if err != nil {
		t.Fatal(err)
	}
	var got, want T
	gerr := DecodeInto(d, in, &got)
	jerr := json.Unmarshal(in, &want)
	if (gerr != nil) != (jerr != nil) {
		t.Fatalf("%T %q: err %v, encoding/json err %v", got, in, gerr, jerr)
	}
	if gerr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%T %q: got %#v, encoding/json %#v", got, in, got, want)
	}
}
