package demo_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/bench"
	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

// TestModesAnswerAlike: RegisterAs answers every bench case and the other
// messages below the same in the three modes: Default byte for byte as
// Inline (the same handlers), Typed too but for the error.data of its
// -32602 answers (dispatch.Typed names the parameter), where the code and
// message must match. A batch's members are compared in sorted order.
func TestModesAnswerAlike(t *testing.T) {
	engines := map[demo.Mode]*dispatch.Engine{}
	for _, m := range demo.Modes() {
		e := dispatch.New(nil)
		if err := demo.RegisterAs(e, m); err != nil {
			t.Fatal(m, err)
		}
		t.Cleanup(e.Close)
		engines[m] = e
	}
	answer := func(m demo.Mode, msg string) string {
		return sortedBatch(t, engines[m].Process(nil, []byte(msg)))
	}
	f := func(msg string, typedData bool) {
		t.Helper()
		want := answer(demo.Inline, msg)
		if got := answer(demo.Default, msg); got != want {
			t.Errorf("default %s\n got %s\nwant %s", msg, got, want)
		}
		got := answer(demo.Typed, msg)
		if !typedData {
			got, want = withoutData(t, got), withoutData(t, want)
		}
		if got != want {
			t.Errorf("typed %s\n got %s\nwant %s", msg, got, want)
		}
	}
	for _, c := range bench.Cases() {
		f(string(c.Msg), true)
	}
	const same, codeOnly = true, false
	f(`{"jsonrpc":"2.0","method":"subtract","params":[23,42],"id":"a"}`, same)
	f(`{"jsonrpc":"2.0","method":"subtract","params":{"subtrahend":23,"minuend":42},"id":2}`, same)
	f(`{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":3}`, same)
	f(`{"jsonrpc":"2.0","method":"sum","params":[1.5,2],"id":3}`, same)
	f(`{"jsonrpc":"2.0","method":"sum","params":[],"id":3}`, same)
	f(`{"jsonrpc":"2.0","method":"get_data","id":4}`, same)
	f(`{"jsonrpc":"2.0","method":"echo","params":{"a":[1,"\u00e9",null]},"id":5}`, same)
	f(`{"jsonrpc":"2.0","method":"echo","id":5}`, same)
	f(`{"jsonrpc":"2.0","method":"update","params":[1,2],"id":6}`, same)
	f(`{"jsonrpc":"2.0","method":"notify_hello","params":[7]}`, same)
	f(`{"jsonrpc":"2.0","method":"notify_sum","params":[1,2,4]}`, same)
	f(`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},`+
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"2"},{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"},`+
		`{"jsonrpc":"2.0","method":"get_data","id":"9"}]`, same)
	f(`{"jsonrpc":"2.0","method":"nope","id":7}`, same)
	f(`{"jsonrpc":"2.0","method":1,"params":"bar"}`, same)
	f(`{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]`, same)
	f(`[]`, same)
	f(`{"jsonrpc":"2.0","method":"sleep","params":[0],"id":8}`, same)
	f(`{"jsonrpc":"2.0","method":"fail","params":{"code":-32001,"message":"no","data":[1]},"id":9}`, same)
	f(`{"jsonrpc":"2.0","method":"panic","id":10}`, same)
	f(`{"jsonrpc":"2.0","method":"subtract","params":["a",2],"id":11}`, codeOnly)
	f(`{"jsonrpc":"2.0","method":"subtract","params":[1,2,3],"id":11}`, codeOnly)
	f(`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":"x","subtrahend":1},"id":11}`, codeOnly)
	f(`{"jsonrpc":"2.0","method":"sum","params":["x"],"id":12}`, codeOnly)
	f(`{"jsonrpc":"2.0","method":"sum","params":{"a":1},"id":12}`, codeOnly)
}

// TestRegisterAs: every mode registers the same method names as Register,
// marks none Inline but in Inline, and an unknown mode is refused.
func TestRegisterAs(t *testing.T) {
	names := func(m demo.Mode) (names []string, inline int) {
		e := dispatch.New(nil)
		defer e.Close()
		if err := demo.RegisterAs(e, m); err != nil {
			t.Fatal(m, err)
		}
		for _, method := range e.Methods() {
			names = append(names, method.Name)
			if method.Inline {
				inline++
			}
		}
		slices.Sort(names)
		return names, inline
	}
	want, inline := names(demo.Inline)
	if inline == 0 {
		t.Error("inline: no method is Inline")
	}
	for _, m := range []demo.Mode{demo.Default, demo.Typed} {
		got, inline := names(m)
		if !slices.Equal(got, want) || inline != 0 {
			t.Errorf("%s: methods %v (%d inline), want %v (none inline)", m, got, inline, want)
		}
	}
	for _, m := range demo.Modes() {
		if p, err := demo.ParseMode(m.String()); err != nil || p != m {
			t.Errorf("ParseMode(%q) = %v, %v", m, p, err)
		}
	}
	if _, err := demo.ParseMode("fast"); err == nil {
		t.Error("ParseMode(fast): no error")
	}
	if err := demo.RegisterAs(dispatch.New(nil), demo.Typed+1); err == nil {
		t.Error("RegisterAs(Typed+1): no error")
	}
}

// sortedBatch returns a batch response's members sorted, one per line, and
// any other response as it is.
func sortedBatch(t *testing.T, b []byte) string {
	t.Helper()
	if len(b) == 0 || b[0] != '[' {
		return string(b)
	}
	var ms []json.RawMessage
	if err := json.Unmarshal(b, &ms); err != nil {
		t.Fatalf("batch response %s: %v", b, err)
	}
	ss := make([]string, len(ms))
	for i, m := range ms {
		ss[i] = string(m)
	}
	slices.Sort(ss)
	return strings.Join(ss, "\n")
}

// withoutData drops error.data from every response in s (lines of
// sortedBatch).
func withoutData(t *testing.T, s string) string {
	t.Helper()
	if s == "" {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("response %s: %v", line, err)
		}
		if e, ok := r["error"].(map[string]any); ok {
			delete(e, "data")
		}
		b, _ := json.Marshal(r)
		lines[i] = string(b)
	}
	return strings.Join(lines, "\n")
}
