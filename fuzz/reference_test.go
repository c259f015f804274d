package fuzz

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/decode"
)

// TestClassify pins the reference to PROTOCOL.md on its own, so that FuzzScanner compares the
// scanner with something known to be right rather than with a second opinion.
func TestClassify(t *testing.T) {
	f := func(in string, depth, batch int, want Outcome, kind decode.Kind, reason decode.Reason, id string) {
		t.Helper()
		r := Classify([]byte(in), depth, batch)
		if r.Outcome != want || r.Kind != kind || r.Reason != reason || show(r.ID) != id {
			t.Errorf("Classify(%.80q, %d, %d) = %v %v %q id %s; want %v %v %q id %s",
				in, depth, batch, r.Outcome, r.Kind, r.Reason, show(r.ID), want, kind, reason, id)
		}
	}
	const none = "<nil>"
	inv := decode.Invalid
	f(req(`"method":"a","id":1`), 0, 0, OK, decode.Call, 0, `1`)
	f(req(`"method":"a","id":9007199254740993`), 0, 0, OK, decode.Call, 0, `9007199254740993`)
	f(req(`"method":"a","id":"a\u0041"`), 0, 0, OK, decode.Call, 0, `"a\u0041"`)
	f(req(`"method":"a","id":null`), 0, 0, OK, decode.Call, 0, `null`)
	f(req(`"method":"a"`), 0, 0, OK, decode.Notification, 0, none)
	f(req(`"m\u0065thod":"a"`), 0, 0, OK, decode.Notification, 0, none)
	f(req(`"method":"a","Method":1`), 0, 0, OK, decode.Notification, 0, none)
	f(`{"jsonrpc":"2\u002e0","result":1,"id":2}`, 0, 0, OK, decode.Result, 0, `2`)
	f(`{"jsonrpc":"2.0","error":{},"id":"x"}`, 0, 0, OK, decode.ErrorResponse, 0, `"x"`)
	// Any member twice, unknown ones too, compared after unescaping; the id is kept when valid.
	f(req(`"method":"a","id":1,"id":1`), 0, 0, OK, inv, decode.ReasonDuplicate, none)
	f(req(`"method":"a","m\u0065thod":"a","id":1`), 0, 0, OK, inv, decode.ReasonDuplicate, `1`)
	f(req(`"method":"a","x":1,"\u0078":2,"id":1`), 0, 0, OK, inv, decode.ReasonDuplicate, `1`)
	f(req(`"method":"a","\ud800":1,"\ufffd":2`), 0, 0, OK, inv, decode.ReasonDuplicate, none)
	f(`{"jsonrpc":"2.0","jsonrpc":"1.0","method":1}`, 0, 0, OK, inv, decode.ReasonDuplicate, none)
	// The documented order of checks.
	f(`{"jsonrpc":"2","method":1,"id":[]}`, 0, 0, OK, inv, decode.ReasonVersion, none)
	f(`{"jsonrpc":"2.0","method":1,"result":1,"id":[]}`, 0, 0, OK, inv, decode.ReasonMethod, none)
	f(req(`"method":"a","error":1,"params":1,"id":[]`), 0, 0, OK, inv, decode.ReasonMixed, none)
	f(req(`"method":"a","params":1,"id":[]`), 0, 0, OK, inv, decode.ReasonParams, none)
	f(req(`"method":"a","params":null,"id":3`), 0, 0, OK, inv, decode.ReasonParams, `3`)
	f(req(`"method":"a","id":true`), 0, 0, OK, inv, decode.ReasonID, none)
	f(req(`"result":1,"error":1`), 0, 0, OK, inv, decode.ReasonMixed, none)
	f(req(`"error":1`), 0, 0, OK, inv, decode.ReasonResponse, none)
	f(req(`"error":1,"id":{}`), 0, 0, OK, inv, decode.ReasonID, none)
	f(req(`"error":1,"id":1`), 0, 0, OK, inv, decode.ReasonResponse, `1`)
	f(req(`"id":1`), 0, 0, OK, inv, decode.ReasonNoMethod, `1`)
	f(`"x"`, 0, 0, OK, inv, decode.ReasonNotObject, none)
	// Batches.
	f(`[]`, 0, 0, OK, inv, decode.ReasonEmptyBatch, none)
	f(`[1,[],{}]`, 0, 0, OK, decode.Batch, 0, none)
	f(`[1,2,3]`, 0, 2, OK, inv, decode.ReasonBatchLimit, none)
	f(`[1,2]`, 0, 2, OK, decode.Batch, 0, none)
	// Bytes: parse errors, UTF-8 and depth.
	f(``, 0, 0, ParseError, inv, 0, none)
	f(`{"a":1,}`, 0, 0, ParseError, inv, 0, none)
	f("[\"\xff\"]", 0, 0, UTF8Error, inv, 0, none)
	f("[\"\xff\",]", 0, 0, ParseError, inv, 0, none)
	f(`{"a":{}}`, 2, 0, OK, inv, decode.ReasonVersion, none)
	f(`{"a":{}}`, 1, 0, DepthError, inv, 0, none)
	f(`[{}]`, 1, 0, DepthError, inv, 0, none)
	f(`[1,"[[["]`, 1, 0, OK, decode.Batch, 0, none)
	f(`[[[`, 2, 0, DepthError, inv, 0, none)
	f(`[1[[`, 1, 0, ParseError, inv, 0, none)
	f(`{"a":1}[[`, 1, 0, ParseError, inv, 0, none)
	f("[\"\xff\",[[1]]]", 2, 0, UTF8Error, inv, 0, none)
	f("[[[1]],\"\xff\"]", 2, 0, DepthError, inv, 0, none)
	f(nest(1000, ""), 0, 0, OK, decode.Batch, 0, none)
	f(nest(1001, ""), 0, 0, DepthError, inv, 0, none)
	f(nest(MaxDepthLimit+1, ""), 1<<20, 0, DepthError, inv, 0, none)

	r := Classify([]byte(` [{"jsonrpc":"2.0","method":"a\n","params":[1] ,"id":-0, "_meta":{}},[1], 2 ] `), 0, 0)
	got := []string{describe(r.Batch[0]), describe(r.Batch[1]), describe(r.Batch[2])}
	want := []string{
		`call seen=0x4f method="a\n" id=-0 params=[1] result=<nil> error=<nil> meta={}`,
		`invalid nested batch seen=0x0 method=<nil> id=<nil> params=<nil> result=<nil> error=<nil> meta=<nil>`,
		`invalid message must be an object seen=0x0 method=<nil> id=<nil> params=<nil> result=<nil> error=<nil> meta=<nil>`,
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("member %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// limits turns two fuzz bytes into parser limits, small ones most of the time; 0 is the default.
func limits(depth, batch uint8) (maxDepth, maxBatch int) {
	return int(depth % 16), int(batch % 8)
}

// FuzzScanner compares decode.Parser with the reference on every input.
func FuzzScanner(f *testing.F) {
	for i, s := range seeds(f) {
		f.Add(s, uint8(0), uint8(0))
		f.Add(s, uint8(i%5+1), uint8(i%3+1))
	}
	var p decode.Parser
	f.Fuzz(func(t *testing.T, data []byte, depth, batch uint8) {
		maxDepth, maxBatch := limits(depth, batch)
		compareParse(t, &p, data, maxDepth, maxBatch)
	})
}

// TestScannerDeep compares the parser with the reference around the default depth limit.
func TestScannerDeep(t *testing.T) {
	var p decode.Parser
	for _, s := range deep {
		compareParse(t, &p, []byte(s), 0, 0)
		compareParse(t, &p, []byte(s), 999, 1)
	}
}

// compareParse parses data with p and checks the outcome against Classify.
func compareParse(t *testing.T, p *decode.Parser, data []byte, maxDepth, maxBatch int) {
	t.Helper()
	p.MaxDepth, p.MaxBatch = maxDepth, maxBatch
	in := bytes.Clone(data)
	m, err := p.Parse(data)
	want := Classify(in, maxDepth, maxBatch)
	where := func() string {
		return "Parse(" + strconv.Quote(string(in)) + ") depth " + strconv.Itoa(maxDepth) + " batch " + strconv.Itoa(maxBatch)
	}
	if !bytes.Equal(in, data) {
		t.Fatalf("%s modified its input", where())
	}
	if want.Outcome != OK {
		var se *decode.SyntaxError
		if m != nil || !errors.As(err, &se) {
			t.Fatalf("%s = %v, %v; want a *decode.SyntaxError (%v)", where(), m != nil, err, want.Outcome)
		}
		if se.Offset < 0 || se.Offset > len(data) {
			t.Fatalf("%s: offset %d outside the input", where(), se.Offset)
		}
		ok := false
		switch want.Outcome {
		case ParseError:
			ok = se.Err == decode.ErrSyntax || se.Err == decode.ErrTruncated || se.Err == decode.ErrUTF8
		case UTF8Error:
			ok = se.Err == decode.ErrUTF8
		case DepthError:
			ok = se.Err == decode.ErrDepth
		}
		if !ok {
			t.Fatalf("%s: error %v; reference says %v", where(), err, want.Outcome)
		}
		if p.Batch() != nil {
			t.Fatalf("%s: Batch() not nil after an error", where())
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v; reference says valid: %s", where(), err, describe(want.Message))
	}
	got := fromDecode(m)
	if d := describe(got); d != describe(want.Message) {
		t.Fatalf("%s:\n got %s\nwant %s", where(), d, describe(want.Message))
	}
	checkCaps(t, where, m)
	batch := p.Batch()
	if len(batch) != len(want.Batch) || (m.Kind == decode.Batch) != (batch != nil) {
		t.Fatalf("%s: %d batch members, want %d", where(), len(batch), len(want.Batch))
	}
	for i := range batch {
		checkCaps(t, where, &batch[i])
		if d := describe(fromDecode(&batch[i])); d != describe(want.Batch[i]) {
			t.Fatalf("%s: member %d:\n got %s\nwant %s", where(), i, d, describe(want.Batch[i]))
		}
	}
	c := m.Clone()
	if d := describe(fromDecode(&c)); d != describe(got) {
		t.Fatalf("%s: Clone:\n got %s\nwant %s", where(), d, describe(got))
	}
}

// checkCaps checks the documented promise that appending to a member slice never overwrites
// the input: each slice's capacity ends where its value ends.
func checkCaps(t *testing.T, where func() string, m *decode.Message) {
	t.Helper()
	for _, b := range [][]byte{m.Method, m.ID, m.Params, m.Result, m.Error, m.Meta} {
		if cap(b) != len(b) {
			t.Fatalf("%s: member %q has capacity %d beyond its length", where(), b, cap(b))
		}
	}
}

func fromDecode(m *decode.Message) Message {
	return Message{
		Kind: m.Kind, Seen: m.Seen, Reason: m.Reason, ID: m.ID, Method: m.Method,
		Params: m.Params, Result: m.Result, Error: m.Error, Meta: m.Meta,
	}
}

// describe renders a message for comparison, telling nil from empty.
func describe(m Message) string {
	var b strings.Builder
	b.WriteString(m.Kind.String())
	if m.Reason != decode.ReasonNone {
		b.WriteString(" " + m.Reason.String())
	}
	b.WriteString(" seen=0x" + strconv.FormatUint(uint64(m.Seen), 16))
	b.WriteString(" method=" + quoted(m.Method))
	for _, f := range []struct {
		name string
		v    []byte
	}{{"id", m.ID}, {"params", m.Params}, {"result", m.Result}, {"error", m.Error}, {"meta", m.Meta}} {
		b.WriteString(" " + f.name + "=" + show(f.v))
	}
	return b.String()
}

// show renders a raw member: "<nil>" for nil.
func show(b []byte) string {
	if b == nil {
		return "<nil>"
	}
	return string(b)
}

func quoted(b []byte) string {
	if b == nil {
		return "<nil>"
	}
	return strconv.Quote(string(b))
}
