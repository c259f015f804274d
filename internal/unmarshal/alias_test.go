package unmarshal

import (
	"encoding/json"
	"reflect"
	"testing"
)

type owned struct {
	S   string            `json:"s"`
	E   string            `json:"e"`
	PS  *string           `json:"ps"`
	B   []byte            `json:"b"`
	Raw json.RawMessage   `json:"raw"`
	Nul json.RawMessage   `json:"nul"`
	N   json.Number       `json:"n"`
	L   []string          `json:"l"`
	A   [2]string         `json:"a"`
	M   map[string]string `json:"m"`
	Any any               `json:"any"`
	In  []inner           `json:"in"`
}

// TestNoAliasing decodes, then overwrites every input byte: nothing decoded
// may change, since the engine reuses the message buffer while typed
// handlers may keep their params.
func TestNoAliasing(t *testing.T) {
	in := `{"s":"plain","e":"esc\u00e9\n","ps":"p","b":"aGVsbG8=","raw":{"k":[1,"x"]},"nul":null,` +
		`"n":-1.5e3,"l":["a","b"],"a":["c","d"],"m":{"key":"val","k\u00e9":"v2"},` +
		`"any":{"x":["y",{"z":"w"}]},"in":[{"x":1,"s":"t"}]}`
	d, err := Compile(reflect.TypeFor[owned]())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(in)
	var got, want owned
	if err := DecodeInto(d, data, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'X'
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded values changed with the input:\n got %#v\nwant %#v", got, want)
	}
}
