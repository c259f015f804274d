// Package streamtest holds handlers that stream their results with
// dispatch.StreamResult, and what each must be answered, for the tests of
// every transport: the same table runs over Engine.Process, TCP NDJSON,
// HTTP (both servers) and WebSocket.
package streamtest

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// Case is a call of one of Methods and its answer.
type Case struct {
	Method string
	// Result is the result wanted; when empty, Code is the error code.
	Result string
	Code   int
	// Cut: the handler fails after more than one piece was written, so
	// where the result is streamed the response is cut off (no complete
	// answer arrives) and where it is held the answer is error Code.
	Cut bool
}

// CodeLate is the error the late failing handler returns.
const CodeLate = -32050

// Many is the result of stream_many: an array of 30,000 numbered strings,
// several pieces long.
var Many = func() string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range 30000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"item ` + strconv.Itoa(i) + `"`)
	}
	b.WriteByte(']')
	return b.String()
}()

// Cases are the calls of Methods and their answers.
var Cases = []Case{
	{Method: "stream_empty", Result: `""`},
	{Method: "stream_one", Result: `{"a":[1,2,{"b":null}]}`},
	{Method: "stream_object", Result: `{"text":"hé\"llo\n€","n":1,"list":[true,false,[]],"o":{}}`},
	{Method: "stream_many", Result: Many},
	{Method: "stream_misuse", Code: int(encode.CodeInternalError)},
	{Method: "stream_unfinished", Code: int(encode.CodeInternalError)},
	{Method: "stream_returns_too", Code: int(encode.CodeInternalError)},
	{Method: "stream_fail_early", Code: CodeLate},
	{Method: "stream_fail_late", Code: CodeLate, Cut: true},
	{Method: "stream_unfinished_late", Code: int(encode.CodeInternalError), Cut: true},
}

var errLate = dispatch.NewError(CodeLate, "failed", nil)

// Methods are the streaming handlers of Cases, with Method.Streams.
func Methods() []dispatch.Method {
	m := func(name string, f func(w *dispatch.ResultWriter) error) dispatch.Method {
		return dispatch.Method{Name: name, Streams: true, Handler: dispatch.HandlerFunc(
			func(ctx context.Context, _, dst []byte) ([]byte, error) {
				return dst, f(dispatch.StreamResult(ctx))
			})}
	}
	return []dispatch.Method{
		m("stream_empty", func(w *dispatch.ResultWriter) error {
			w.BeginString()
			return w.EndString()
		}),
		m("stream_one", func(w *dispatch.ResultWriter) error {
			return w.Value([]byte(`{"a":[1,2,{"b":null}]}`))
		}),
		m("stream_object", func(w *dispatch.ResultWriter) error {
			w.BeginObject()
			w.Key("text")
			w.BeginString()
			w.WriteString("h\xc3")   // é cut between two writes
			w.WriteString("\xa9\"l") // its second byte, a quote to escape
			w.WriteString("lo\n\xe2\x82")
			w.WriteString("\xac")
			w.EndString()
			w.Key("n")
			w.Value([]byte("1"))
			w.Key("list")
			w.BeginArray()
			w.Value([]byte("true"))
			w.Value([]byte("false"))
			w.BeginArray()
			w.EndArray()
			w.EndArray()
			w.Key("o")
			w.BeginObject()
			w.EndObject()
			return w.EndObject()
		}),
		m("stream_many", func(w *dispatch.ResultWriter) error { return writeMany(w, 30000) }),
		m("stream_misuse", func(w *dispatch.ResultWriter) error {
			return w.Key("no object") // ErrResultMisuse, returned: an error before any byte
		}),
		m("stream_unfinished", func(w *dispatch.ResultWriter) error {
			w.BeginArray()
			w.Value([]byte("1"))
			return nil // the array left open
		}),
		m("stream_fail_early", func(w *dispatch.ResultWriter) error { return errLate }),
		m("stream_fail_late", func(w *dispatch.ResultWriter) error {
			writeOpen(w, 30000)
			return errLate
		}),
		m("stream_unfinished_late", func(w *dispatch.ResultWriter) error {
			writeOpen(w, 30000)
			return nil
		}),
		{Name: "stream_returns_too", Streams: true, Handler: dispatch.HandlerFunc(
			func(ctx context.Context, _, dst []byte) ([]byte, error) {
				dispatch.StreamResult(ctx).Value([]byte("1"))
				return append(dst, "2"...), nil // a result returned as well: refused
			})},
	}
}

// writeOpen writes n items of an array and leaves it open.
func writeOpen(w *dispatch.ResultWriter, n int) {
	w.BeginArray()
	var b []byte
	for i := range n {
		b = append(b[:0], "item "...)
		b = strconv.AppendInt(b, int64(i), 10)
		w.BeginString()
		w.Write(b)
		w.EndString()
	}
}

func writeMany(w *dispatch.ResultWriter, n int) error {
	writeOpen(w, n)
	return w.EndArray()
}

// Forever is a method stream_forever that streams a string until a write
// fails (the client went away, its context ended), then reports the
// error on ended.
func Forever(ended chan<- error) dispatch.Method {
	return dispatch.Method{Name: "stream_forever", Streams: true, Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			w := dispatch.StreamResult(ctx)
			w.BeginString()
			piece := []byte(strings.Repeat("y", 4096))
			for {
				if _, err := w.Write(piece); err != nil {
					ended <- err
					return dst, err
				}
				if err := ctx.Err(); err != nil {
					ended <- err
					return dst, err
				}
			}
		})}
}

// Call is the call of c's method with id.
func Call(method string, id int) string {
	return `{"jsonrpc":"2.0","method":"` + method + `","params":[],"id":` + strconv.Itoa(id) + `}`
}

// Check checks that raw is one valid response to c with id: its result,
// or its error code (cut cases where the result was held).
func Check(t testing.TB, c Case, id int, raw []byte) {
	t.Helper()
	var r struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.JSONRPC != "2.0" {
		t.Fatalf("%s: not one valid response (%v): %.200s", c.Method, err, raw)
	}
	if string(r.ID) != strconv.Itoa(id) {
		t.Fatalf("%s: id %s, want %d", c.Method, r.ID, id)
	}
	if c.Result != "" {
		if r.Error != nil || string(r.Result) != c.Result {
			t.Fatalf("%s: got %.200s, want result %.100s", c.Method, raw, c.Result)
		}
		return
	}
	if r.Error == nil || r.Error.Code != c.Code || r.Result != nil {
		t.Fatalf("%s: got %.200s, want error %d", c.Method, raw, c.Code)
	}
}
