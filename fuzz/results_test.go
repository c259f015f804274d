package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
)

// NOTE: FuzzHandlerResults makes handlers return arbitrary bytes in every
// shape a handler may return them (dst extended, dst grown past its
// capacity, a fresh slice, a shared slice, the params, nil) and checks each
// answer with the reference: a result equal (as JSON) to the bytes when
// they are one valid JSON value, -32603 when not. The input is split into
// pieces at 0xFF (a byte no valid JSON holds); mode byte i says how call i
// returns piece i, and whether it is a notification and Inline.

// resultCall is what the handler of call i returns.
type resultCall struct {
	piece  []byte
	shape  uint8
	notify bool
	inline bool
	params []byte // the call's params: [i] or [i,piece]
}

// The result shapes.
const (
	shapeExtend   = iota // append(dst, piece...)
	shapeFresh           // a fresh copy
	shapeGrown           // dst grown past its capacity, then piece appended
	shapeBytewise        // appended to dst a byte at a time
	shapeShared          // a slice of a buffer shared by every call
	shapeParams          // the params themselves ([i,piece]; only for valid pieces)
	shapeNil             // nil
	shapeSpaced          // piece with whitespace around it, appended to dst
	shapes
)

// resultTable is the calls of the current input, read by the handlers.
var resultTable atomic.Pointer[[]resultCall]

// resultHandler returns what resultTable says for the call its params name.
func resultHandler(_ context.Context, params, dst []byte) ([]byte, error) {
	end := bytes.IndexAny(params, ",]")
	i, err := strconv.Atoi(string(params[1:end]))
	calls := *resultTable.Load()
	if err != nil || i < 0 || i >= len(calls) {
		return nil, dispatch.NewError(-32602, "Invalid params", nil)
	}
	c := &calls[i]
	switch c.shape {
	case shapeExtend:
		return append(dst, c.piece...), nil
	case shapeFresh:
		return slices.Clone(c.piece), nil
	case shapeGrown:
		return append(slices.Grow(dst, cap(dst)-len(dst)+1), c.piece...), nil
	case shapeBytewise:
		for _, b := range c.piece {
			dst = append(dst, b)
		}
		return dst, nil
	case shapeShared:
		return c.piece[:len(c.piece):len(c.piece)], nil
	case shapeParams:
		return params, nil
	case shapeNil:
		return nil, nil
	}
	return append(append(append(dst, " \n\t"...), c.piece...), "\r\n "...), nil
}

// returned is what the handler of c returns (the bytes the answer is
// checked against).
func (c *resultCall) returned() []byte {
	switch c.shape {
	case shapeParams:
		return c.params
	case shapeNil:
		return nil
	case shapeSpaced:
		return []byte(" \n\t" + string(c.piece) + "\r\n ")
	}
	return c.piece
}

// validResult reports whether b is one valid JSON value (UTF-8, nesting at
// most 1024 containers as the engine checks results) by the reference.
func validResult(b []byte) bool {
	return Classify(b, 1024, 1<<30).Outcome == OK
}

// newResultEngine returns an engine with the methods "inline" and
// "default" (registered the plain way: on workers in a batch until it has
// proved quick, then on the batch's goroutine), serving resultHandler.
func newResultEngine(tb testing.TB) *dispatch.Engine {
	e := dispatch.New(&dispatch.Options{MaxWorkers: 4, Logger: slog.New(slog.DiscardHandler)})
	h := dispatch.HandlerFunc(resultHandler)
	if err := e.RegisterMethod(dispatch.Method{Name: "inline", Handler: h, Inline: true}); err != nil {
		tb.Fatal(err)
	}
	if err := e.Register("default", h); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(e.Close)
	return e
}

// FuzzHandlerResults: see the NOTE above.
func FuzzHandlerResults(f *testing.F) {
	sep := "\xff"
	seeds := []struct {
		data, modes string
		batch       bool
	}{
		{`{"a":"0123456789012345678901234567890123456789"}`, "\x01", false},
		{`[1,2,3]` + sep + `hello` + sep + `{"a":1` + sep + `1 2` + sep + `""`, "\x00\x01\x02\x03\x04\x05\x06\x07", true},
		{`"x"` + sep + `{"b":[true,false,null]}` + sep + `-0.5e3`, "\x08\x09\x0a\x13\x1b", true},
		{`   ` + sep + `` + sep + `{"a":1}}` + sep + "\"\xfe\"", "\x02\x0d\x05\x01", false},
		{`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]` + sep + `{"k":"\u00e9\ud83d\ude00"}`, "\x05\x0c", true},
		{string(bytes.Repeat([]byte(`"0123456789abcdef",`), 40)) + `0`, "\x00", false},
		{`[` + string(bytes.Repeat([]byte(`"0123456789abcdef",`), 40)) + `0]`, "\x02\x0a", true},
		{`null` + sep + `true` + sep + `1e400` + sep + `nul` + sep + `tru`, "\x00\x08\x10\x18\x03", true},
	}
	for _, s := range seeds {
		f.Add([]byte(s.data), []byte(s.modes), s.batch)
	}
	e := newResultEngine(f)
	f.Fuzz(func(t *testing.T, data, modes []byte, batch bool) {
		pieces := bytes.Split(data, []byte{0xff})
		if len(pieces) > 24 {
			pieces = pieces[:24]
		}
		calls := make([]resultCall, len(pieces))
		for i, p := range pieces {
			var m byte
			if i < len(modes) {
				m = modes[i]
			}
			c := resultCall{piece: p, shape: m % shapes, inline: m&0x08 != 0, notify: m&0x10 != 0 && batch}
			c.params = []byte("[" + strconv.Itoa(i) + "]")
			if c.shape == shapeParams {
				// The params are [i,piece] when that is valid JSON within the
				// message's depth limit, else the shape falls back to fresh.
				if Classify(p, 900, 1<<30).Outcome == OK {
					c.params = []byte("[" + strconv.Itoa(i) + "," + string(p) + "]")
				} else {
					c.shape = shapeFresh
				}
			}
			calls[i] = c
		}
		resultTable.Store(&calls)
		var msgs [][]byte
		for i := range calls {
			msgs = append(msgs, resultRequest(&calls[i], i))
		}
		if batch {
			msgs = [][]byte{append(append([]byte("["), bytes.Join(msgs, []byte(","))...), ']')}
		}
		for k, msg := range msgs {
			dst := append(make([]byte, 0, 3+len(data)%64), "pre"...)
			out := e.Process(dst, msg)
			if len(out) < 3 || string(out[:3]) != "pre" {
				t.Fatalf("Process(%q) = %q: lost what dst held", msg, out)
			}
			want := calls
			if !batch {
				want = calls[k : k+1]
			}
			if problem := checkResults(want, firstID(k, batch), out[3:], batch); problem != "" {
				t.Fatalf("Process(%q) = %q\n%s", msg, out[3:], problem)
			}
		}
	})
}

func firstID(k int, batch bool) int {
	if batch {
		return 0
	}
	return k
}

// resultRequest renders call i: id i (a string for odd i) unless a
// notification.
func resultRequest(c *resultCall, i int) []byte {
	method := "default"
	if c.inline {
		method = "inline"
	}
	b := []byte(`{"jsonrpc":"2.0","method":"` + method + `","params":` + string(c.params))
	if !c.notify {
		b = append(append(b, `,"id":`...), resultID(i)...)
	}
	return append(b, '}')
}

func resultID(i int) string {
	if i%2 == 1 {
		return `"r` + strconv.Itoa(i) + `"`
	}
	return strconv.Itoa(i)
}

// checkResults checks out, the answer to calls (ids from first on), with
// the reference: valid JSON, the right shape (an array for a batch), one
// response per call with its id, and each the result returned or -32603.
func checkResults(calls []resultCall, first int, out []byte, batch bool) string {
	owed := map[string]*resultCall{}
	for i := range calls {
		if !calls[i].notify {
			owed[resultID(first+i)] = &calls[i]
		}
	}
	if len(owed) == 0 {
		if len(out) != 0 {
			return "want no answer"
		}
		return ""
	}
	got := Classify(out, MaxDepthLimit, 1<<30)
	var resps []Message
	switch {
	case got.Outcome != OK:
		return "answer: " + got.Outcome.String()
	case batch && got.Kind != decode.Batch:
		return "want a batch array"
	case batch:
		resps = got.Batch
	case got.Kind == decode.Batch:
		return "want one response object, got an array"
	default:
		resps = []Message{got.Message}
	}
	if msg := onlyThreeMembers(out, batch); msg != "" {
		return msg
	}
	for i := range resps {
		r := &resps[i]
		if msg := wellFormed(out, r); msg != "" {
			return "response " + strconv.Itoa(i) + ": " + msg
		}
		c, ok := owed[string(r.ID)]
		if !ok {
			return "response to id " + string(r.ID) + ": not owed, or twice"
		}
		delete(owed, string(r.ID))
		ret := c.returned()
		switch {
		case len(ret) == 0:
			if r.Kind != decode.Result || string(r.Result) != "null" {
				return "id " + string(r.ID) + ": want result null"
			}
		case validResult(ret):
			if r.Kind != decode.Result || !sameJSON(r.Result, ret) {
				return "id " + string(r.ID) + ": want result " + strconv.Quote(string(ret))
			}
		default:
			if r.Kind != decode.ErrorResponse || errorCode(r.Error) != -32603 {
				return "id " + string(r.ID) + ": want error -32603 for result " + strconv.Quote(string(ret))
			}
		}
	}
	if len(owed) != 0 {
		return strconv.Itoa(len(owed)) + " calls not answered"
	}
	return ""
}

// sameJSON compares two valid JSON texts as JSON, whitespace aside.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}
