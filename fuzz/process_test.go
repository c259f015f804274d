package fuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// engineConfigs are the limits of the engines FuzzProcess picks from: the defaults, and small
// ones so that depth and batch limits are hit often.
var engineConfigs = []struct{ depth, batch int }{{0, 0}, {3, 2}, {1, 1}, {6, 5}}

// newEngines returns one engine with the demo methods per entry of engineConfigs. Handler
// panics (the demo "panic" method) are logged to nowhere.
func newEngines(tb testing.TB) []*dispatch.Engine {
	tb.Helper()
	var es []*dispatch.Engine
	for _, c := range engineConfigs {
		e := dispatch.New(&dispatch.Options{
			MaxDepth:   c.depth,
			MaxBatch:   c.batch,
			MaxWorkers: 4,
			Logger:     slog.New(slog.DiscardHandler),
		})
		if err := demo.Register(e); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(e.Close)
		es = append(es, e)
	}
	return es
}

// FuzzProcess runs Engine.Process on arbitrary bytes: it must not panic, and it must answer
// exactly what the reference says is due, with well-formed responses carrying the request ids
// byte for byte. The handlers' parent context is already cancelled, so the demo "sleep"
// returns at once.
func FuzzProcess(f *testing.F) {
	for i, s := range seeds(f) {
		f.Add(s, uint8(i))
	}
	engines := newEngines(f)
	cancelled := cancelledContext()
	f.Fuzz(func(t *testing.T, data []byte, cfg uint8) {
		process(t, cancelled, engines, data, cfg)
	})
}

// cancelledContext returns a context that is already cancelled: the demo "sleep" returns at once.
func cancelledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestProcessDeep runs the messages around the default depth limit through the default engine.
func TestProcessDeep(t *testing.T) {
	engines := newEngines(t)
	for _, s := range deep {
		process(t, cancelledContext(), engines, []byte(s), 0)
	}
}

// process runs data through engines[cfg%len(engines)] with ctx as the handlers' parent and
// checks what it writes.
func process(t *testing.T, ctx context.Context, engines []*dispatch.Engine, data []byte, cfg uint8) {
	t.Helper()
	c := int(cfg) % len(engines)
	in := bytes.Clone(data)
	dst := append(make([]byte, 0, 3+int(cfg)%64), "pre"...)
	out := engines[c].ProcessContext(ctx, dst, data)
	where := func() string {
		return "Process(" + strconv.Quote(string(in)) + ") limits " + strconv.Itoa(engineConfigs[c].depth) +
			"/" + strconv.Itoa(engineConfigs[c].batch)
	}
	if !bytes.Equal(in, data) {
		t.Fatalf("%s modified its input", where())
	}
	if len(out) < 3 || string(out[:3]) != "pre" {
		t.Fatalf("%s = %q: lost what dst held", where(), out)
	}
	ref := Classify(in, engineConfigs[c].depth, engineConfigs[c].batch)
	if msg := checkResponse(ref, out[3:]); msg != "" {
		t.Fatalf("%s = %s\n%s", where(), out[3:], msg)
	}
}

// expected is one response the engine owes: its id (nil: null) and a check of the rest.
type expected struct {
	id    []byte
	check func(r *Message) string // "" when r is acceptable
}

// owed returns the responses ref says are due and whether they come as an array.
func owed(ref *Result) ([]expected, bool) {
	switch {
	case ref.Outcome != OK:
		return []expected{{nil, wantCode(ref.Code())}}, false
	case ref.Kind == decode.Batch:
		var exp []expected
		for i := range ref.Batch {
			if e, ok := owedOne(&ref.Batch[i]); ok {
				exp = append(exp, e)
			}
		}
		return exp, true
	}
	if e, ok := owedOne(&ref.Message); ok {
		return []expected{e}, false
	}
	return nil, false
}

// owedOne returns the response due to one message or batch member, if any: an Invalid one is
// always answered, a call is, notifications and responses never are.
func owedOne(m *Message) (expected, bool) {
	switch m.Kind {
	case decode.Invalid:
		return expected{m.ID, wantCode(-32600)}, true
	case decode.Call:
		return expected{m.ID, demoCheck(m)}, true
	}
	return expected{}, false
}

// demoCheck returns what a call of the demo method m names must get.
func demoCheck(m *Message) func(*Message) string {
	switch string(m.Method) {
	case "echo":
		want := m.Params
		if want == nil {
			want = []byte("null")
		}
		return wantResult(want)
	case "get_data":
		return wantResult([]byte(`["hello",5]`))
	case "update", "notify_hello", "notify_sum":
		return wantResult([]byte(`null`))
	case "panic":
		return wantCode(-32603)
	case "fail":
		return failCheck(m.Params)
	case "subtract", "sum", "sleep":
		return func(r *Message) string {
			if r.Kind == decode.Result && !numberRE.Match(r.Result) {
				return "result is not a number"
			}
			return ""
		}
	}
	return wantCode(-32601)
}

// failCheck returns what the demo "fail" must answer to params: the error object they
// describe, its message escaped exactly as encoding/json escapes it (encode.AppendString's
// promise), or -32602 when they do not describe one.
func failCheck(params []byte) func(*Message) string {
	var p map[string]json.RawMessage // the last of a repeated member wins, as in fail
	if len(params) == 0 || params[0] != '{' || json.Unmarshal(params, &p) != nil {
		return wantCode(-32602)
	}
	code, err := strconv.ParseInt(string(p["code"]), 10, 32)
	var text string
	msg := p["message"]
	if !integerRE.Match(p["code"]) || err != nil || len(msg) == 0 || msg[0] != '"' || json.Unmarshal(msg, &text) != nil {
		return wantCode(-32602)
	}
	if text == "" {
		text = encode.Code(code).String()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(text); err != nil {
		panic(err)
	}
	message := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	data, hasData := p["data"]
	return func(r *Message) string {
		var e map[string]json.RawMessage
		if r.Kind != decode.ErrorResponse || json.Unmarshal(r.Error, &e) != nil {
			return "fail: want an error"
		}
		got, gotData := e["data"]
		switch {
		case string(e["code"]) != strconv.FormatInt(code, 10):
			return "fail: want code " + strconv.FormatInt(code, 10)
		case !bytes.Equal(e["message"], message):
			return "fail: want message " + string(message)
		case gotData != hasData || !bytes.Equal(got, data):
			return "fail: want data " + string(data)
		}
		return ""
	}
}

var (
	numberRE  = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)
	integerRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
)

func wantResult(want []byte) func(*Message) string {
	return func(r *Message) string {
		if r.Kind != decode.Result || !bytes.Equal(r.Result, want) {
			return "want result " + string(want)
		}
		return ""
	}
}

func wantCode(code int) func(*Message) string {
	return func(r *Message) string {
		if r.Kind != decode.ErrorResponse || errorCode(r.Error) != code {
			return "want error " + strconv.Itoa(code)
		}
		return ""
	}
}

// errorCode returns the code of a well-formed error object.
func errorCode(obj []byte) int {
	var e struct{ Code json.Number }
	if json.Unmarshal(obj, &e) != nil {
		return 0
	}
	n, _ := strconv.Atoi(string(e.Code))
	return n
}

// checkResponse checks out, what the engine wrote for a message the reference read as ref,
// and returns what is wrong with it, or "".
func checkResponse(ref Result, out []byte) string {
	exp, array := owed(&ref)
	if len(exp) == 0 {
		if len(out) != 0 {
			return "want no response"
		}
		return ""
	}
	if !json.Valid(out) || !utf8.Valid(out) {
		return "not valid JSON"
	}
	got := Classify(out, MaxDepthLimit, 1<<30)
	var resps []Message
	switch {
	case got.Outcome != OK:
		return "response: " + got.Outcome.String()
	case array && got.Kind != decode.Batch:
		return "want a batch array, got " + describe(got.Message)
	case array:
		resps = got.Batch
	case got.Kind == decode.Batch:
		return "want one response object, got an array"
	default:
		resps = []Message{got.Message}
	}
	if msg := onlyThreeMembers(out, array); msg != "" {
		return msg
	}
	if len(resps) != len(exp) {
		return "got " + strconv.Itoa(len(resps)) + " responses, want " + strconv.Itoa(len(exp)) + wantIDs(exp)
	}
	for i := range resps {
		if msg := wellFormed(out, &resps[i]); msg != "" {
			return "response " + strconv.Itoa(i) + ": " + msg
		}
	}
	if !match(exp, resps) {
		return "responses do not match the requests" + wantIDs(exp)
	}
	return ""
}

// onlyThreeMembers checks that every response object has three members: the reference read
// the known ones (and refused any twice), this catches unknown ones.
func onlyThreeMembers(out []byte, array bool) string {
	var objs []map[string]json.RawMessage
	if !array {
		out = append(append([]byte{'['}, out...), ']')
	}
	if err := json.Unmarshal(out, &objs); err != nil {
		return "responses: " + err.Error()
	}
	for i, o := range objs {
		if len(o) != 3 {
			return "response " + strconv.Itoa(i) + " has " + strconv.Itoa(len(o)) + " members"
		}
	}
	return ""
}

func wantIDs(exp []expected) string {
	s := " (ids:"
	for _, e := range exp {
		s += " " + idText(e.id)
	}
	return s + ")"
}

func idText(id []byte) string {
	if id == nil {
		return "null"
	}
	return string(id)
}

// wellFormed checks one response: "jsonrpc":"2.0", an id, exactly one of result and error
// (onlyThreeMembers rules out any other), an error with an integer code and a string message.
func wellFormed(out []byte, r *Message) string {
	if r.Kind != decode.Result && r.Kind != decode.ErrorResponse {
		return "not a response: " + describe(*r)
	}
	if r.ID == nil {
		return "bad id"
	}
	if r.Seen != decode.HasJSONRPC|decode.HasID|decode.HasResult && r.Seen != decode.HasJSONRPC|decode.HasID|decode.HasError {
		return "members 0x" + strconv.FormatUint(uint64(r.Seen), 16)
	}
	if r.Kind == decode.Result {
		return ""
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(r.Error, &e) != nil {
		return "error not an object"
	}
	code, message := e["code"], e["message"]
	delete(e, "code")
	delete(e, "message")
	delete(e, "data")
	switch {
	case !integerRE.Match(code):
		return "error code " + string(code) + " not an integer"
	case len(message) == 0 || message[0] != '"':
		return "error message not a string"
	case len(e) != 0:
		return "error object has other members"
	}
	return ""
}

// match reports whether the responses can be paired one to one with the expected ones: the
// same id byte for byte (null for nil) and the check passed. Batch responses come in any order,
// so this is a bipartite matching (Kuhn's augmenting paths; batches are small).
func match(exp []expected, resps []Message) bool {
	ok := make([][]bool, len(exp))
	for i, e := range exp {
		ok[i] = make([]bool, len(resps))
		for j := range resps {
			ok[i][j] = bytes.Equal(resps[j].ID, []byte(idText(e.id))) && e.check(&resps[j]) == ""
		}
	}
	owner := make([]int, len(resps)) // owner[j]: the expectation response j is paired with, or -1
	for j := range owner {
		owner[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := range resps {
			if ok[i][j] && !seen[j] {
				seen[j] = true
				if owner[j] < 0 || try(owner[j], seen) {
					owner[j] = i
					return true
				}
			}
		}
		return false
	}
	for i := range exp {
		if !try(i, make([]bool, len(resps))) {
			return false
		}
	}
	return true
}

// TestCheckResponse makes sure the harness rejects what it should.
func TestCheckResponse(t *testing.T) {
	f := func(in, out string, ok bool) {
		t.Helper()
		msg := checkResponse(Classify([]byte(in), 0, 0), []byte(out))
		if (msg == "") != ok {
			t.Errorf("checkResponse(%s, %s) = %q, want ok %v", in, out, msg, ok)
		}
	}
	call := req(`"method":"echo","params":[1],"id":1e3`)
	f(call, `{"jsonrpc":"2.0","id":1e3,"result":[1]}`, true)
	f(call, `{"jsonrpc":"2.0","id":1000,"result":[1]}`, false)                    // id not byte for byte
	f(call, `{"jsonrpc":"2.0","id":1e3,"result":[1] }`, true)                     // whitespace is fine
	f(call, `{"jsonrpc":"2.0","id":1e3,"result":[2]}`, false)                     // echo changed the params
	f(call, `{"jsonrpc":"2.0","id":1e3,"result":[1],"x":1}`, false)               // an extra member
	f(call, `{"jsonrpc":"2.0","id":1e3,"result":[1],"error":{}}`, false)          // both
	f(call, `{"id":1e3,"result":[1]}`, false)                                     // no version
	f(call, `[{"jsonrpc":"2.0","id":1e3,"result":[1]}]`, false)                   // an array for a single
	f(call, ``, false)                                                            // nothing
	f(req(`"method":"echo"`), ``, true)                                           // notification
	f(req(`"method":"echo"`), `{"jsonrpc":"2.0","id":null,"result":null}`, false) // answered a notification
	f(req(`"method":"nope","id":"x"`), `{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"m"}}`, true)
	f(req(`"method":"nope","id":"x"`), `{"jsonrpc":"2.0","id":"x","error":{"code":-32601.0,"message":"m"}}`, false)
	f(req(`"method":"nope","id":"x"`), `{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":1}}`, false)
	f(req(`"method":"nope","id":"x"`), `{"jsonrpc":"2.0","id":"x","error":{"code":-32600,"message":"m"}}`, false)
	f(`{`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, true)
	f(`{`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Parse error"}}`, false)
	f(`[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`, true)
	f(`[]`, `[]`, false)
	f(`[1,{"id":2}]`, `[{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"m"}},`+
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}]`, true) // any order
	f(`[1,{"id":2}]`, `[{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"m"}},`+
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"m"}}]`, false) // id 2 twice, null missing
	f(`[1,{"id":2}]`, `[{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"m"}}]`, false) // one missing
	fail := req(`"method":"fail","params":{"code":7,"message":"<\u2028\ud800>","data":[1 ]},"id":1`)
	f(fail, `{"jsonrpc":"2.0","id":1,"error":{"code":7,"message":"<\u2028�>","data":[1 ]}}`, true)
	f(fail, `{"jsonrpc":"2.0","id":1,"error":{"code":7,"message":"<\u2028\ufffd>","data":[1 ]}}`, false) // not as encoding/json
	f(fail, `{"jsonrpc":"2.0","id":1,"error":{"code":7,"message":"<\u2028�>","data":[1]}}`, false)
	f(fail, `{"jsonrpc":"2.0","id":1,"error":{"code":7,"message":"<\u2028�>"}}`, false)
	f(req(`"method":"fail","params":{"code":7,"message":null},"id":1`),
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}`, true)
	f(req(`"method":"fail","params":{"code":7,"message":""},"id":1`),
		`{"jsonrpc":"2.0","id":1,"error":{"code":7,"message":"Error"}}`, true)
	f(`[`+req(`"method":"update"`)+`]`, ``, true)
	f(`[`+req(`"method":"update"`)+`]`, `[]`, false)
}
