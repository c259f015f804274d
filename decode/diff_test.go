package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// refDepth matches encoding/json's nesting limit, so both sides agree on deep input.
const refDepth = 10000

// refValid is the reference: encoding/json's syntax check plus UTF-8 validity (json.Valid accepts
// invalid UTF-8 inside strings).
func refValid(data []byte) bool { return json.Valid(data) && utf8.Valid(data) }

// refMsg is a classification computed with encoding/json, independently of the scanner.
type refMsg struct {
	kind                     Kind
	reason                   Reason
	method, id, params, meta string // "<nil>" when nil
	result, errv             string
	members                  []refMsg
}

// blank is a classification with no member fields.
func blank(k Kind, reason Reason) refMsg {
	return refMsg{kind: k, reason: reason, method: "<nil>", id: "<nil>", params: "<nil>", meta: "<nil>", result: "<nil>", errv: "<nil>"}
}

func rawOrNil(raw json.RawMessage, ok bool) string {
	if !ok {
		return "<nil>"
	}
	return string(raw)
}

// refClassify classifies valid JSON following PROTOCOL.md with encoding/json's tokenizer.
func refClassify(data []byte) refMsg {
	data = bytes.TrimLeft(data, " \t\r\n")
	switch data[0] {
	case '{':
		return refObject(data)
	case '[':
		var members []json.RawMessage
		if err := json.Unmarshal(data, &members); err != nil {
			panic(err)
		}
		if len(members) == 0 {
			return blank(Invalid, ReasonEmptyBatch)
		}
		if len(members) > DefaultMaxBatch {
			return blank(Invalid, ReasonBatchLimit)
		}
		r := blank(Batch, ReasonNone)
		for _, mem := range members {
			switch mem[0] {
			case '{':
				r.members = append(r.members, refObject(mem))
			case '[':
				r.members = append(r.members, blank(Invalid, ReasonNestedBatch))
			default:
				r.members = append(r.members, blank(Invalid, ReasonNotObject))
			}
		}
		return r
	}
	return blank(Invalid, ReasonNotObject)
}

func refObject(data []byte) refMsg {
	known := map[string]bool{"jsonrpc": true, "method": true, "params": true, "id": true, "result": true, "error": true, "_meta": true}
	vals := map[string]json.RawMessage{}
	dup := map[string]bool{}
	seenOther := map[string]bool{} // any member twice is a duplicate, unknown ones too
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		panic(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			panic(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			panic(err)
		}
		key := tok.(string)
		if !known[key] {
			if seenOther[key] {
				dup[key] = true
			}
			seenOther[key] = true
			continue
		}
		if _, ok := vals[key]; ok {
			dup[key] = true
		} else {
			vals[key] = v
		}
	}
	get := func(k string) (json.RawMessage, bool) { v, ok := vals[k]; return v, ok }
	r := refMsg{method: "<nil>", id: "<nil>"}
	if v, ok := get("method"); ok && v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			panic(err)
		}
		r.method = s
	}
	r.params = rawOrNil(get("params"))
	r.meta = rawOrNil(get("_meta"))
	r.result = rawOrNil(get("result"))
	r.errv = rawOrNil(get("error"))
	idv, hasID := get("id")
	idOK := hasID && (idv[0] == '"' || idv[0] == 'n' || idv[0] == '-' || idv[0] >= '0' && idv[0] <= '9')
	if idOK && !dup["id"] {
		r.id = string(idv)
	}
	version := false
	if v, ok := get("jsonrpc"); ok && v[0] == '"' {
		var s string
		_ = json.Unmarshal(v, &s)
		version = s == "2.0"
	}
	mv, hasMethod := get("method")
	pv, hasParams := get("params")
	_, hasResult := get("result")
	ev, hasError := get("error")
	set := func(k Kind, reason Reason) refMsg { r.kind, r.reason = k, reason; return r }
	switch {
	case len(dup) > 0:
		return set(Invalid, ReasonDuplicate)
	case !version:
		return set(Invalid, ReasonVersion)
	case hasMethod:
		switch {
		case mv[0] != '"':
			return set(Invalid, ReasonMethod)
		case hasResult || hasError:
			return set(Invalid, ReasonMixed)
		case hasParams && pv[0] != '[' && pv[0] != '{':
			return set(Invalid, ReasonParams)
		case !hasID:
			return set(Notification, ReasonNone)
		case !idOK:
			return set(Invalid, ReasonID)
		}
		return set(Call, ReasonNone)
	case hasResult && hasError:
		return set(Invalid, ReasonMixed)
	case hasResult || hasError:
		switch {
		case !hasID:
			return set(Invalid, ReasonResponse)
		case !idOK:
			return set(Invalid, ReasonID)
		case hasResult:
			return set(Result, ReasonNone)
		case ev[0] != '{':
			return set(Invalid, ReasonResponse)
		}
		return set(ErrorResponse, ReasonNone)
	}
	return set(Invalid, ReasonNoMethod)
}

func gotMsg(m *Message, batch []Message) refMsg {
	r := blank(m.Kind, m.Reason)
	for i := range batch {
		r.members = append(r.members, gotMsg(&batch[i], nil))
	}
	if m.Method != nil {
		r.method = string(m.Method)
	}
	r.id, r.params, r.meta = show(m.ID), show(m.Params), show(m.Meta)
	r.result, r.errv = show(m.Result), show(m.Error)
	return r
}

// check compares Parse, Valid and the classification with the references for one input.
func check(t *testing.T, p *Parser, data []byte) {
	t.Helper()
	want := refValid(data)
	m, err := p.Parse(data)
	if got := err == nil; got != want {
		t.Fatalf("Parse(%q): err = %v, reference valid = %v", data, err, want)
	}
	if got := Valid(data, refDepth); got != want {
		t.Fatalf("Valid(%q) = %v, reference %v", data, got, want)
	}
	if err != nil {
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(data) {
			t.Fatalf("Parse(%q): bad error %#v", data, err)
		}
		if m != nil {
			t.Fatalf("Parse(%q): message with error", data)
		}
		return
	}
	got := gotMsg(m, p.Batch())
	ref := refClassify(data)
	if !equalMsg(got, ref) {
		t.Fatalf("Parse(%q):\n got %+v\nwant %+v", data, got, ref)
	}
	c := m.Clone()
	if !equalMsg(gotMsg(&c, p.Batch()), got) {
		t.Fatalf("Clone(%q) differs", data)
	}
	msgs := []Message{*m}
	if m.Kind == Batch {
		msgs = p.Batch()
	}
	for k := range msgs {
		checkCompact(t, data, &msgs[k])
	}
}

// checkCompact checks m.ParamsCompact against encoding/json's Compact: never true for params
// Compact changes; exact for params shorter than 64 bytes, which only the portable scanner
// reads (the SIMD lane of a GOEXPERIMENT=simd build may say false for compact ones).
func checkCompact(t *testing.T, data []byte, m *Message) {
	t.Helper()
	params := m.Params
	want := false
	if len(params) > 0 && (params[0] == '{' || params[0] == '[') {
		var b bytes.Buffer
		want = json.Compact(&b, params) == nil && bytes.Equal(b.Bytes(), params)
	}
	if got := m.ParamsCompact(); got && !want || !got && want && len(params) < 64 {
		t.Fatalf("Parse(%q): ParamsCompact() = %v for params %q", data, got, params)
	}
}

func equalMsg(a, b refMsg) bool {
	if a.kind != b.kind || a.reason != b.reason || a.method != b.method || a.id != b.id || a.params != b.params ||
		a.meta != b.meta || a.result != b.result || a.errv != b.errv || len(a.members) != len(b.members) {
		return false
	}
	for i := range a.members {
		if !equalMsg(a.members[i], b.members[i]) {
			return false
		}
	}
	return true
}

// seeds are valid and invalid messages the corpus is grown from.
var seeds = []string{
	smallMsg, namedMsg, largeMsg, batch10Msg,
	req(`"method":"a","id":9007199254740993`), req(`"method":"a","id":1e3`), req(`"method":"a","id":-0`),
	req(`"method":"a","id":1.5`), req(`"method":"a","id":"a\u0041"`), req(`"method":"a","id":null`),
	req(`"m\u0065thod":"x\ud83d\ude00y","params":{"a":[1,"b",{"c":null}]},"_meta":{"t":1},"id":"é"`),
	`{"jsonrpc":"2\u002e0","result":{"x":[true,false]},"id":7}`,
	`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"\ud800"},"id":null}`,
	`[{"jsonrpc":"2.0","method":"a"},[1],2,"s",{"id":1,"id":2}]`,
	" {\n \"jsonrpc\" : \"2.0\" ,\r\n\t\"method\" : \"sum\" , \"params\" : [ 1 , 2.5e-3 , -0 ] } ",
	`{"jsonrpc":"2.0","method":"a","params":"\"\\\/\b\f\n\r\t\u0000\u001F\uFFFF"}`,
	"{\"jsonrpc\":\"2.0\",\"method\":\"日本語\",\"params\":[\"\U0010FFFF\",\"\u0080\",\"\u07FF\"]}",
	`[]`, `[1,2,3]`, `1`, `"x"`, `null`, `true`, `false`, `-1.5E+10`, `0`, `{}`, `[[[]]]`,
	`{"a":1,}`, `[01]`, `"\x"`, "\"\xed\xa0\x80\"", "\"\xc3\"", `{"a" 1}`, `1.`, `tru`, ``, ` `,
}

// corpus returns the seeds plus every prefix and many single-byte mutations, deletions and
// insertions of each.
func corpus() [][]byte {
	subst := []byte{'"', '\\', '{', '}', '[', ']', ',', ':', '0', '1', '-', '+', '.', 'e', 'u', 'n', ' ', '\n', 'a',
		0x00, 0x1f, 0x7f, 0x80, 0xbf, 0xc3, 0xe2, 0xed, 0xf0, 0xff}
	var out [][]byte
	for _, s := range seeds {
		b := []byte(s)
		out = append(out, b)
		for n := range len(b) {
			out = append(out, b[:n])
		}
		// Mutate every position of short seeds, a spread of positions of long ones.
		for i := 0; i < len(b); i += 1 + len(b)/150 {
			for _, c := range subst {
				m := bytes.Clone(b)
				m[i] = c
				out = append(out, m)
				ins := append(append(bytes.Clone(b[:i]), c), b[i:]...)
				out = append(out, ins)
			}
			out = append(out, append(bytes.Clone(b[:i]), b[i+1:]...))
		}
	}
	// Every byte value at every offset around the 8-byte blocks inside a string.
	for n := range 17 {
		for c := range 256 {
			out = append(out, []byte(`["`+strings.Repeat("a", n)+string([]byte{byte(c)})+strings.Repeat("b", 9)+`"]`))
		}
	}
	// Every 2-byte sequence after a lead byte, to cover the UTF-8 ranges.
	for _, lead := range []byte{0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf3, 0xf4} {
		for c := range 256 {
			out = append(out, []byte("\""+string([]byte{lead, byte(c), 0x80, 0x80})+"\""))
			out = append(out, []byte("\""+string([]byte{lead, 0x90, byte(c), 0x80})+"\""))
		}
	}
	return out
}

func TestDifferential(t *testing.T) {
	p := Parser{MaxDepth: refDepth}
	c := corpus()
	for _, in := range c {
		check(t, &p, in)
	}
	t.Logf("%d inputs", len(c))
	// Depth at encoding/json's limit.
	check(t, &p, []byte(nest(refDepth, "")))
	check(t, &p, []byte(nest(refDepth+1, "")))
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	// nst/JSONTestSuite's test_parsing files (the fuzz package keeps them, with their
	// LICENSE), but the two of tens of kilobytes of brackets.
	suite, _ := filepath.Glob("../fuzz/testdata/jsontestsuite/*.json")
	if len(suite) == 0 {
		f.Fatal("no JSONTestSuite files in ../fuzz/testdata/jsontestsuite")
	}
	for _, name := range suite {
		if b, err := os.ReadFile(name); err != nil {
			f.Fatal(err)
		} else if len(b) <= 4<<10 {
			f.Add(b)
		}
	}
	p := Parser{MaxDepth: refDepth}
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, &p, data)
	})
}
