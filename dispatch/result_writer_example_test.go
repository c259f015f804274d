package dispatch_test

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jetrpc/jetrpc/dispatch"
)

// A handler writes its result in pieces with the call's ResultWriter.
// Over Process (and any transport that needs the length first) the result
// is held and answered whole; over NDJSON, WebSocket and HTTP it goes out
// as it is written.
func ExampleStreamResult() {
	e := dispatch.New(nil)
	defer e.Close()
	err := e.RegisterMethod(dispatch.Method{Name: "count", Streams: true, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, params, dst []byte) ([]byte, error) {
			w := dispatch.StreamResult(ctx)
			w.BeginObject()
			w.Key("numbers")
			w.BeginArray()
			var n []byte
			for i := range 3 {
				n = strconv.AppendInt(n[:0], int64(i), 10)
				if err := w.Value(n); err != nil {
					return dst, err
				}
			}
			w.EndArray()
			w.Key("note")
			w.BeginString()
			w.WriteString(`a "quoted" line` + "\n")
			w.EndString()
			return dst, w.EndObject()
		})})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s\n", e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"count","id":1}`)))
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"numbers":[0,1,2],"note":"a \"quoted\" line\n"}}
}
