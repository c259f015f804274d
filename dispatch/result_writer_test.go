package dispatch_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/streamtest"
)

func callMsg(method string, id int, params string) []byte {
	if params == "" {
		params = "[]"
	}
	return []byte(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `,"id":` + strconv.Itoa(id) + `}`)
}

// TestStreamResultProcess: over Process (no transport: the result is held)
// every streaming handler of the table is answered one valid response with
// its id: its result, or its error (a failure after pieces would have gone
// out is an ordinary error here, since nothing went out); in a batch too.
func TestStreamResultProcess(t *testing.T) {
	e := newDemo(t, nil, streamtest.Methods()...)
	var batch []string
	for i, c := range streamtest.Cases {
		out := e.Process(nil, callMsg(c.Method, i+1, ""))
		checkCase(t, c, i+1, parseOne(t, out))
		batch = append(batch, string(callMsg(c.Method, i+1, "")))
	}
	for _, r := range parseBatch(t, e.Process(nil, batchOf(batch...))) {
		i, _ := strconv.Atoi(string(r.ID))
		checkCase(t, streamtest.Cases[i-1], i, r)
	}
	// A notification's streamed result is dropped.
	if out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"stream_many"}`)); len(out) != 0 {
		t.Fatalf("notification answered %.80s", out)
	}
}

func checkCase(t *testing.T, c streamtest.Case, id int, r resp) {
	t.Helper()
	if string(r.ID) != strconv.Itoa(id) {
		t.Fatalf("%s: id %s, want %d", c.Method, r.ID, id)
	}
	if c.Result != "" {
		if r.Error != nil || string(r.Result) != c.Result {
			t.Fatalf("%s: got result %.100s error %+v, want %.100s", c.Method, r.Result, r.Error, c.Result)
		}
		return
	}
	if r.Error == nil || r.Error.Code != c.Code {
		t.Fatalf("%s: got result %.100s error %+v, want code %d", c.Method, r.Result, r.Error, c.Code)
	}
}

// TestMaxResponse: a response over MaxResponse, returned or streamed and
// held, is the ResponseTooLarge condition with the call's id and
// error.data naming the bound; the next calls are answered as usual, and
// endpoints that remap the condition's code (Options.Codes) use theirs.
func TestMaxResponse(t *testing.T) {
	const limit = 1000
	e := newDemo(t, &dispatch.Options{MaxResponse: limit})
	f := func(method string, id, n int, tooLarge bool) {
		t.Helper()
		params := `["` + strings.Repeat("x", n) + `"]`
		if method == "blob" {
			params = "[" + strconv.Itoa(n) + "]"
		}
		out := e.Process(nil, callMsg(method, id, params))
		r := parseOne(t, out)
		if string(r.ID) != strconv.Itoa(id) {
			t.Fatalf("id %s, want %d", r.ID, id)
		}
		if !tooLarge {
			if r.Error != nil || len(out) > limit {
				t.Fatalf("%s %d: %.100s", method, n, out)
			}
			return
		}
		if r.Error == nil || r.Error.Code != int(dispatch.CodeResponseTooLarge) ||
			r.Error.Message != "Response too large" || string(r.Error.Data) != `"response over 1000 bytes"` {
			t.Fatalf("%s %d: %.200s", method, n, out)
		}
	}
	f("echo", 1, 900, false)
	f("echo", 2, 1000, true)
	f("echo", 3, 10, false)
	f("blob", 4, 900, false)
	f("blob", 5, 1000, true)
	f("blob", 6, 1<<20, true)
	f("blob", 7, 0, false)
	// In a batch: the member over MaxResponse only.
	rs := parseBatch(t, e.Process(nil, batchOf(string(callMsg("blob", 1, "[2000]")), string(callMsg("blob", 2, "[20]")))))
	if len(rs) != 2 {
		t.Fatalf("batch: %d responses", len(rs))
	}
	for _, r := range rs {
		if tooLarge := string(r.ID) == "1"; tooLarge != (r.Error != nil) {
			t.Fatalf("batch member %s: %+v", r.ID, r.Error)
		}
	}
	// An endpoint with the condition remapped.
	m := newDemo(t, &dispatch.Options{MaxResponse: limit, Codes: &dispatch.Codes{ResponseTooLarge: -32010}})
	if r := parseOne(t, m.Process(nil, callMsg("blob", 9, "[5000]"))); r.Error == nil || r.Error.Code != -32010 {
		t.Fatalf("remapped: %+v", r.Error)
	}
}

// TestBlobParams: blob takes [n] with 0 <= n <= 1 GiB; anything else is
// -32602.
func TestBlobParams(t *testing.T) {
	e := newDemo(t, nil)
	for _, p := range []string{`[-1]`, `[1073741825]`, `["5"]`, `{"m":5}`, `{"n":1,"m":2}`, `[]`, `[1,2]`, `[1.5]`} {
		r := parseOne(t, e.Process(nil, callMsg("blob", 1, p)))
		if r.Error == nil || r.Error.Code != int(encode.CodeInvalidParams) {
			t.Fatalf("blob %s: %+v", p, r.Error)
		}
	}
	if r := parseOne(t, e.Process(nil, callMsg("blob", 1, `{"n":3}`))); string(r.Result) != `"xxx"` {
		t.Fatalf("blob {n:3}: %s %+v", r.Result, r.Error)
	}
	r := parseOne(t, e.Process(nil, callMsg("blob", 1, "[70000]")))
	var s string
	if err := json.Unmarshal(r.Result, &s); err != nil || s != strings.Repeat("x", 70000) {
		t.Fatalf("blob 70000: %v, %d bytes", err, len(s))
	}
}

// TestStreamResultOutsideCall: StreamResult of a context that is no
// call's is nil, and so is that of a call that ended.
func TestStreamResultOutsideCall(t *testing.T) {
	if dispatch.StreamResult(context.Background()) != nil {
		t.Fatal("writer outside a call")
	}
	var kept context.Context
	e := newDemo(t, nil, dispatch.Method{Name: "keep", Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			kept = ctx
			return append(dst, '1'), nil
		})})
	e.Process(nil, callMsg("keep", 1, ""))
	if dispatch.StreamResult(kept) != nil {
		t.Fatal("writer after the call ended")
	}
}
