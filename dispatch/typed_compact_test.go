package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/dispatch"
)

// rawCapture binds the whole params through its UnmarshalJSON, so that a Typed handler of
// it runs through a frame (typed.go's serve), not the direct path of a json.RawMessage.
type rawCapture struct{ raw []byte }

func (c *rawCapture) UnmarshalJSON(b []byte) error {
	c.raw = append([]byte(nil), b...)
	return nil
}

// compactParams are params spaced out in every position a value can hold whitespace, and
// compact ones (with spaces inside strings, which stay), short and past the 64 bytes from
// which the scanner's SIMD lane takes a value (GOEXPERIMENT=simd).
func compactParams() []string {
	long := `"` + strings.Repeat("a b", 30) + `"`
	ps := []string{
		`[1,"a b",{"c":null}]`, `{"a":[1,2,{"b":"c\" d"}],"e":{}}`, `[]`, `{}`, `[" "]`,
		`[` + long + `,{"k":[` + long + `,1,2,3]},` + long + `]`,
	}
	for _, ws := range []string{" ", "\n", "\t", "\r\n "} {
		ps = append(ps,
			`[`+ws+`1,"a b"`+ws+`,`+ws+`{`+ws+`"c"`+ws+`:`+ws+`null`+ws+`}`+ws+`]`,
			`{"a":[1,2,{"b":"c\" d"}],"e":{`+ws+`}}`,
			`[`+ws+`]`, `{`+ws+`}`,
			`[`+long+`,{"k":[`+long+`,1,2,3]},`+long+ws+`]`,
			`[`+long+`,{"k":[`+long+`,1,2,`+ws+`3]},`+long+`]`,
			`[`+long+`,{"k"`+ws+`:[`+long+`,1,2,3]},`+long+`]`,
		)
	}
	return ps
}

// TestTypedRawEchoCompact: a Typed echo's result is byte for byte what encoding/json's
// Compact writes for the params, whether the params were compact (appended as they are) or
// not (compacted), alone and in a batch, on the direct path and through a frame; and when
// a middleware or another handler passes the typed handler other params than the message's
// under the call's context, they are compacted all the same.
func TestTypedRawEchoCompact(t *testing.T) {
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	echo := dispatch.Typed(func(_ context.Context, p json.RawMessage) (json.RawMessage, error) { return p, nil })
	var spaced []byte // the params the wrapping handler passes instead of its own
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.Register("echo", echo))
	must(e.Register("framed", dispatch.Typed(func(_ context.Context, c rawCapture) (json.RawMessage, error) {
		return c.raw, nil
	})))
	must(e.Register("wrap", dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
		return echo.ServeRPC(ctx, spaced, dst)
	})))
	mw := dispatch.New(nil)
	t.Cleanup(mw.Close)
	must(mw.Use(func(_ string, next dispatch.Handler) dispatch.Handler {
		return dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
			return next.ServeRPC(ctx, spaced, dst)
		})
	}))
	must(mw.Register("echo", echo))

	compact := func(p string) string {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(p)); err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		return b.String()
	}
	call := func(e *dispatch.Engine, method, params string, id int) (string, string) {
		in := `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `,"id":` + strconv.Itoa(id) + `}`
		return in, string(e.Process(nil, []byte(in)))
	}
	ps := compactParams()
	for k, p := range ps {
		want := `{"jsonrpc":"2.0","id":` + strconv.Itoa(k) + `,"result":` + compact(p) + `}`
		for _, method := range []string{"echo", "framed"} {
			if in, got := call(e, method, p, k); got != want {
				t.Errorf("%s\n got %s\nwant %s", in, got, want)
			}
		}
		// The message's params are compact, the ones passed on are spaced out.
		spaced = []byte(ps[len(ps)-1-k])
		wantOther := `{"jsonrpc":"2.0","id":` + strconv.Itoa(k) + `,"result":` + compact(string(spaced)) + `}`
		if in, got := call(e, "wrap", compact(p), k); got != wantOther {
			t.Errorf("wrap: %s\n got %s\nwant %s", in, got, wantOther)
		}
		if in, got := call(mw, "echo", compact(p), k); got != wantOther {
			t.Errorf("middleware: %s\n got %s\nwant %s", in, got, wantOther)
		}
	}
	// A batch: each member's own flag. Its answers come in any order (the
	// members run concurrently): compare each member's bytes, sorted.
	var in strings.Builder
	var want []string
	in.WriteByte('[')
	for k, p := range ps {
		if k > 0 {
			in.WriteString(" ,\n")
		}
		in.WriteString(`{"jsonrpc":"2.0","method":"echo","params":` + p + `,"id":` + strconv.Itoa(k) + `}`)
		want = append(want, `{"jsonrpc":"2.0","id":`+strconv.Itoa(k)+`,"result":`+compact(p)+`}`)
	}
	in.WriteByte(']')
	out := e.Process(nil, []byte(in.String()))
	var raws []json.RawMessage
	if err := json.Unmarshal(out, &raws); err != nil {
		t.Fatalf("batch: %s is not an array: %v", out, err)
	}
	got := make([]string, len(raws))
	for i, r := range raws {
		got[i] = string(r)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("batch\n got %s\nwant %s", got, want)
	}
}
