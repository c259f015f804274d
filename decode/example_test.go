package decode_test

import (
	"fmt"

	"github.com/jetrpc/jetrpc/decode"
)

func ExampleParser_Parse() {
	var p decode.Parser // reuse one per goroutine
	for _, in := range []string{
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":9007199254740993}`,
		`{"jsonrpc":"2.0","method":"update","params":{"a":1}}`,
		`{"jsonrpc":"2.0","method":1,"id":"a\u0041"}`,
		`[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":"1"},2]`,
		`{"jsonrpc":"2.0","method":"a",`,
	} {
		m, err := p.Parse([]byte(in))
		if err != nil {
			fmt.Println(err)
			continue
		}
		switch m.Kind {
		case decode.Call, decode.Notification:
			fmt.Printf("%s %s params=%s id=%s\n", m.Kind, m.Method, m.Params, m.ID)
		case decode.Batch:
			for _, bm := range p.Batch() {
				if bm.Kind == decode.Invalid {
					fmt.Printf("  member invalid (%s)\n", bm.Reason)
				} else {
					fmt.Printf("  member %s %s id=%s\n", bm.Kind, bm.Method, bm.ID)
				}
			}
		default:
			fmt.Printf("%s (%s) id=%s\n", m.Kind, m.Reason, m.ID)
		}
	}
	// Output:
	// call subtract params=[42,23] id=9007199254740993
	// notification update params={"a":1} id=
	// invalid (method must be a string) id="a\u0041"
	//   member call sum id="1"
	//   member invalid (message must be an object)
	// decode: unexpected end of input at offset 30
}

func ExampleIter() {
	params := []byte(`{"minuend":42,"subtrahend":23}`)
	var it decode.Iter
	var a, b int64
	it.Reset(params)
	for it.Next() {
		switch {
		case decode.KeyEquals(it.Key(), "minuend"):
			a, _ = decode.ParseInt(it.Value())
		case decode.KeyEquals(it.Key(), "subtrahend"):
			b, _ = decode.ParseInt(it.Value())
		}
	}
	fmt.Println(a - b)
	// Output: 19
}

// A result that echoes compact params can be copied as it is; spaced-out
// params (whitespace between tokens, not inside strings) need compacting
// first to match what encoding/json writes.
func ExampleMessage_ParamsCompact() {
	var p decode.Parser
	for _, in := range []string{
		`{"jsonrpc":"2.0","method":"echo","params":{"a":[1,"b c"]},"id":1}`,
		`{ "jsonrpc": "2.0", "method": "echo", "params": {"a":[1,"b c"]}, "id": 1 }`,
		`{"jsonrpc":"2.0","method":"echo","params":{"a": [1, "b c"]},"id":1}`,
	} {
		m, err := p.Parse([]byte(in))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(string(m.Params), m.ParamsCompact())
	}
	// Output:
	// {"a":[1,"b c"]} true
	// {"a":[1,"b c"]} true
	// {"a": [1, "b c"]} false
}
