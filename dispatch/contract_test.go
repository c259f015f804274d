package dispatch_test

// The handler contract (Handler's doc): results of any slice, only valid
// JSON on the wire, contexts that may be kept. Handlers are written the
// way users write them: fresh slices, the params returned, goroutines
// that keep their context.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// resultShapes are the ways a handler hands its result back: what it
// returns for a result of JSON text want.
var resultShapes = []struct {
	name string
	ret  func(params, dst []byte, want string) []byte
}{
	{"appended", func(_, dst []byte, want string) []byte { return append(dst, want...) }},
	{"fresh", func(_, _ []byte, want string) []byte { return []byte(want) }},
	{"grown", func(_, dst []byte, want string) []byte {
		dst = append(dst[:cap(dst)], make([]byte, 1)...)[:0] // past its capacity first
		return append(dst, want...)
	}},
	{"params", func(params, _ []byte, _ string) []byte { return params }},
	{"nil", func(_, _ []byte, _ string) []byte { return nil }},
	{"tail", func(_, dst []byte, want string) []byte { // a slice of dst's capacity, not at its start
		b := append(dst, "  "...)
		return append(b, want...)[2:]
	}},
}

// shapeWant is the result a shape answers with for params p and result w.
func shapeWant(shape, p, w string) string {
	switch shape {
	case "params":
		return p
	case "nil":
		return "null"
	}
	return w
}

// jsonOfLen returns a JSON object of exactly n bytes (n >= 2).
func jsonOfLen(n int) string {
	if n < 8 {
		return `"` + strings.Repeat("x", n-2) + `"`
	}
	return `{"a":"` + strings.Repeat("y", n-8) + `"}`
}

func contractEngine(t testing.TB, inline bool) *dispatch.Engine {
	shape := func(i int) dispatch.Handler {
		return dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
			var args []json.RawMessage
			if err := json.Unmarshal(params, &args); err != nil || len(args) != 1 {
				return dst, encode.CodeInvalidParams.Err()
			}
			var want string
			if err := json.Unmarshal(args[0], &want); err != nil {
				return dst, encode.CodeInvalidParams.Err()
			}
			return resultShapes[i].ret(params, dst, want), nil
		})
	}
	var ms []dispatch.Method
	for i, s := range resultShapes {
		ms = append(ms, dispatch.Method{Name: s.name, Handler: shape(i), Inline: inline})
	}
	return newDemo(t, nil, ms...)
}

// TestResultShapes: every shape of result, for results of every length
// from 2 to 300 bytes, inline and default, single and in a batch, is
// answered as one response with the right id and result.
func TestResultShapes(t *testing.T) {
	for _, inline := range []bool{true, false} {
		e := contractEngine(t, inline)
		dst := make([]byte, 0, 64) // small: results land in place, past it, anything
		for n := 2; n <= 300; n++ {
			want := jsonOfLen(n)
			var batch []string
			wants := map[string]string{}
			for i, s := range resultShapes {
				params := `[` + strconv.Quote(want) + `]`
				id := strconv.Itoa(n*100 + i)
				msg := `{"jsonrpc":"2.0","method":"` + s.name + `","params":` + params + `,"id":` + id + `}`
				wants[id] = shapeWant(s.name, params, want)
				dst = e.Process(dst[:0], []byte(msg))
				r := parseOne(t, dst)
				if string(r.ID) != id || r.Error != nil || !jsonEqual(r.Result, wants[id]) {
					t.Fatalf("inline=%v %s len %d: got %s, want id %s result %s", inline, s.name, n, dst, id, wants[id])
				}
				batch = append(batch, msg)
			}
			dst = e.Process(dst[:0], []byte("["+strings.Join(batch, ",")+"]"))
			checkBatch(t, dst, wants)
		}
	}
}

func jsonEqual(got json.RawMessage, want string) bool {
	var a, b any
	return json.Unmarshal(got, &a) == nil && json.Unmarshal([]byte(want), &b) == nil &&
		bytes.Equal(mustJSON(a), mustJSON(b))
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// checkBatch checks a batch's answer: one valid response per id of wants,
// each with its result (or, for a want starting with "error ", that code).
func checkBatch(t testing.TB, out []byte, wants map[string]string) {
	t.Helper()
	var rs []json.RawMessage
	if err := json.Unmarshal(out, &rs); err != nil {
		t.Fatalf("batch answer %s is not a JSON array: %v", out, err)
	}
	if len(rs) != len(wants) {
		t.Fatalf("batch answer %s: %d responses, want %d", out, len(rs), len(wants))
	}
	seen := map[string]bool{}
	for _, raw := range rs {
		r := parseOne(t, raw)
		id := string(r.ID)
		want, ok := wants[id]
		if !ok || seen[id] {
			t.Fatalf("batch answer %s: unexpected or repeated id %s", out, id)
		}
		seen[id] = true
		if code, isErr := strings.CutPrefix(want, "error "); isErr {
			if r.Error == nil || strconv.Itoa(r.Error.Code) != code {
				t.Fatalf("batch answer %s: id %s, want error %s", out, id, code)
			}
			continue
		}
		if r.Error != nil || !jsonEqual(r.Result, want) {
			t.Fatalf("batch answer %s: id %s, want result %s", out, id, want)
		}
	}
}

// TestInvalidResult: a raw result that is not one valid JSON value is
// answered -32603, never sent; the batch's other calls are answered; it is
// logged once per method, not per call.
func TestInvalidResult(t *testing.T) {
	bad := []string{`hello`, `{"a":1`, `1 2`, `{"a":1}}`, `"unterminated`, "\"\xff\"", `[1,]`, ` `}
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	for _, inline := range []bool{true, false} {
		var ms []dispatch.Method
		for i, b := range bad {
			b := b
			ms = append(ms, dispatch.Method{Name: "bad" + strconv.Itoa(i), Inline: inline,
				Handler: dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
					return append(dst, b...), nil
				})})
		}
		e := newDemo(t, &dispatch.Options{Logger: log}, ms...)
		for i := range bad {
			for range 3 {
				out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"bad`+strconv.Itoa(i)+`","id":7}`))
				r := parseOne(t, out)
				if r.Error == nil || r.Error.Code != -32603 || string(r.ID) != "7" {
					t.Fatalf("inline=%v result %q: got %s, want -32603 with id 7", inline, bad[i], out)
				}
			}
			msg := `[{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":1},` +
				`{"jsonrpc":"2.0","method":"bad` + strconv.Itoa(i) + `","id":2},` +
				`{"jsonrpc":"2.0","method":"echo","params":[1],"id":3}]`
			checkBatch(t, e.Process(nil, []byte(msg)), map[string]string{"1": "2", "2": "error -32603", "3": "[1]"})
		}
	}
	// Each of the 2 x 8 methods is logged once, whatever the calls.
	if n := strings.Count(logs.String(), "not one valid JSON value"); n != 2*len(bad) {
		t.Errorf("%d log lines about invalid results, want %d (once per method):\n%s", n, 2*len(bad), logs.String())
	}
	if !strings.Contains(logs.String(), "method=bad3") {
		t.Errorf("the log does not name the method:\n%s", logs.String())
	}
}

// TestTrustedResult: a method registered with TrustedResult skips the
// check (its handler's promise); a Typed handler's result needs none.
func TestTrustedResult(t *testing.T) {
	e := newDemo(t, nil, dispatch.Method{Name: "trusted", TrustedResult: true,
		Handler: dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
			return append(dst, `{"ok":true}`...), nil
		})})
	out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"trusted","id":1}`))
	if r := parseOne(t, out); string(r.Result) != `{"ok":true}` {
		t.Fatalf("got %s", out)
	}
}

// TestPrettyResult: a pretty-printed result is valid JSON and is answered.
func TestPrettyResult(t *testing.T) {
	e := newDemo(t, nil, dispatch.Method{Name: "pretty",
		Handler: dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
			return append(dst, "{\n  \"a\": [\n    1,\n    2\n  ]\n}\n"...), nil
		})})
	out := e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"pretty","id":1}`))
	if r := parseOne(t, out); !jsonEqual(r.Result, `{"a":[1,2]}`) {
		t.Fatalf("got %s", out)
	}
}

// TestKeptContext: handlers that keep their context and use it from
// goroutines while new calls run (run it with -race): no panic, no other
// call's id or method, done once the call ended; Detach keeps the values
// and is not done.
func TestKeptContext(t *testing.T) {
	type kept struct {
		ctx      context.Context
		id       string
		detached context.Context
	}
	var (
		mu    sync.Mutex
		saved []kept
		wg    sync.WaitGroup
		fails = make(chan string, 100)
	)
	fail := func(s string) {
		select {
		case fails <- s:
		default:
		}
	}
	check := func(ctx context.Context, id string) {
		for range 50 {
			if got := dispatch.RequestID(ctx); got != nil && string(got) != id {
				fail("kept context of call " + id + " shows id " + string(got))
			}
			if m := dispatch.MethodName(ctx); m != nil && string(m) != "keep" {
				fail("kept context shows method " + string(m))
			}
			_ = ctx.Err()
			_ = ctx.Value("user")
			select {
			case <-ctx.Done():
			default:
			}
		}
	}
	keep := dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
		id := string(dispatch.RequestID(ctx))
		k := kept{ctx: ctx, id: id, detached: dispatch.Detach(ctx)}
		mu.Lock()
		saved = append(saved, k)
		mu.Unlock()
		wg.Add(1)
		go func() { // uses the context while the call runs, and after
			defer wg.Done()
			check(ctx, id)
			<-ctx.Done()
			if ctx.Err() == nil {
				fail("done, but Err is nil")
			}
			if dispatch.RequestID(ctx) != nil || dispatch.MethodName(ctx) != nil || dispatch.Meta(ctx) != nil {
				fail("a call's context still shows its values after the call")
			}
			check(ctx, id)
		}()
		return append(dst, params...), nil
	})
	for _, inline := range []bool{true, false} {
		e := newDemo(t, nil, dispatch.Method{Name: "keep", Handler: keep, Inline: inline})
		var calls sync.WaitGroup
		for g := range 4 {
			calls.Add(1)
			go func() {
				defer calls.Done()
				dst := make([]byte, 0, 256)
				for i := range 200 {
					id := strconv.Itoa(g*1000 + i)
					msg := `{"jsonrpc":"2.0","method":"keep","params":[` + id + `],"id":` + id + `,"_meta":{"n":` + id + `}}`
					if i%10 == 0 { // and batches
						msg = "[" + msg + `,{"jsonrpc":"2.0","method":"keep","params":[1],"id":"b` + id + `"}]`
					}
					dst = e.Process(dst[:0], []byte(msg))
				}
			}()
		}
		calls.Wait()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("goroutines waiting on kept contexts were never released: Done is not closed when the call ends")
	}
	close(fails)
	for f := range fails {
		t.Error(f)
	}
	for _, k := range saved {
		if k.ctx.Err() == nil {
			t.Fatal("a kept context is not done after its call")
		}
		if got := string(dispatch.RequestID(k.detached)); got != k.id {
			t.Fatalf("Detach: RequestID %q, want %q", got, k.id)
		}
		if k.detached.Err() != nil {
			t.Fatal("Detach: the detached context is done")
		}
	}
	if len(saved) < 2*4*220 {
		t.Fatalf("%d calls kept their context, want %d", len(saved), 2*4*220)
	}
}

// TestContextDoneByClose: a call's context is done when the engine closes,
// and a context kept from a call that ended stays done.
func TestContextDoneByClose(t *testing.T) {
	started := make(chan context.Context, 1)
	e := newDemo(t, nil, dispatch.Method{Name: "block",
		Handler: dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
			started <- ctx
			<-ctx.Done()
			return dst, ctx.Err()
		})})
	answered := make(chan []byte, 1)
	go func() { answered <- e.Process(nil, []byte(`{"jsonrpc":"2.0","method":"block","id":1}`)) }()
	ctx := <-started
	if ctx.Err() != nil {
		t.Fatal("done before the call ended")
	}
	e.Close()
	select {
	case out := <-answered:
		if r := parseOne(t, out); r.Error == nil || r.Error.Code != -32002 {
			t.Fatalf("got %s, want -32002", out)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the call's context")
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("Err %v after Close", ctx.Err())
	}
}

// syncBuffer is a bytes.Buffer safe for a logger used by many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
