package dispatch_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
)

// fuzzFlat is a struct without embedding, so that its positional order is
// its field order (refBind's flatFields).
type fuzzFlat struct {
	A int              `json:"a"`
	B string           `json:"b"`
	C []float64        `json:"c"`
	D *bool            `json:"d"`
	E map[string]int   `json:"e"`
	F [2]uint8         `json:"f"`
	G any              `json:"g"`
	H json.RawMessage  `json:"h"`
	I int8             `json:"i"`
	J []fuzzFlat       `json:"j"`
	K map[string][]any `json:"k"`
	L upperText        `json:"l"`
	M float32
	N uint64 `json:"n,omitempty"`
}

var fuzzEngine = sync.OnceValue(func() *dispatch.Engine {
	e := dispatch.New(nil)
	if err := e.Register("ping", dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		return append(dst, "true"...), nil
	})); err != nil {
		panic(err)
	}
	mirror[fuzzFlat](e, "flat")
	mirror[*fuzzFlat](e, "flatp")
	mirror[[]int](e, "ints")
	mirror[[3]string](e, "strings")
	mirror[map[string]any](e, "map")
	mirror[any](e, "any")
	mirror[float64](e, "float")
	mirror[string](e, "string")
	mirror[[]byte](e, "bytes")
	return e
})

// FuzzTyped is the differential check of Typed's binding: for params the
// engine accepts, Typed binds the same value as encoding/json would under
// Typed's rules (refBind), or both reject the params.
func FuzzTyped(f *testing.F) {
	for _, s := range []string{
		`[1,"x",[1.5,2],true,{"a":1},[1,2],{"z":null},{"r":[]},-5,[{"a":2}],{"k":[1,"a"]},"l",1.5,7]`,
		`{"a":1,"B":"x","c":[1e3],"d":false,"e":{"k":-1},"f":[255,0],"g":[{}],"h":"s","i":-128,"j":[{"b":"y"}]}`,
		`{"A":"1"}`, `[300]`, `["\u00e9\ud83d\ude00"]`, `[1.5e308,-0,1E-7]`, `{"n":18446744073709551615}`,
		`{"h" : [1, {"x" : 2 } ],"e":{"b":1,"a":2,"B":3}}`, `{"k":{"z":[],"a":[{"q":1,"p":[]}]}}`,
		`[[1],[2]]`, `[null]`, `{}`, `[]`, `["aGk="]`, `[[1,2,3]]`, `{"m":{"M":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return // not one value: spliced into the message it could add members
		}
		e := fuzzEngine()
		ping := []byte(`{"jsonrpc":"2.0","method":"ping","id":1,"params":` + string(params) + `}`)
		if r := parseOne(t, e.Process(nil, ping)); r.Error != nil {
			return // the scanner refuses these params before any handler
		}
		checkRef[fuzzFlat](t, e, "flat", params)
		checkRef[*fuzzFlat](t, e, "flatp", params)
		checkRef[[]int](t, e, "ints", params)
		checkRef[[3]string](t, e, "strings", params)
		checkRef[map[string]any](t, e, "map", params)
		checkRef[any](t, e, "any", params)
		checkRef[float64](t, e, "float", params)
		checkRef[string](t, e, "string", params)
		checkRef[[]byte](t, e, "bytes", params)
	})
}
