// Package streamtest holds handlers that stream their results with
// dispatch.StreamResult, and what each must be answered, for the tests of
// every transport: the same table runs over Engine.Process, TCP NDJSON,
// HTTP (both servers) and WebSocket.
package streamtest

import (
	"context"
	"strconv"
	"strings"

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

// Methods are the streaming handlers of Cases (not Inline: they may block
// on the connection).
func Methods() []dispatch.Method {
	m := func(name string, f func(w *dispatch.ResultWriter) error) dispatch.Method {
		return dispatch.Method{Name: name, Handler: dispatch.HandlerFunc(
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
		{Name: "stream_returns_too", Handler: dispatch.HandlerFunc(
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
