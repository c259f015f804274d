package dispatch_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

func TestBatches(t *testing.T) {
	e := newDemo(t, &dispatch.Options{MaxBatch: 5})
	single := func(in string, wantCode int) {
		t.Helper()
		out := e.Process(nil, []byte(in))
		if len(out) == 0 || out[0] != '{' {
			t.Fatalf("%s: want one response object, got %s", in, out)
		}
		r := parseOne(t, out)
		if r.Error == nil || r.Error.Code != wantCode || string(r.ID) != "null" {
			t.Fatalf("%s: want %d with id null, got %s", in, wantCode, out)
		}
	}
	single(`[]`, -32600)
	single(` [ ] `, -32600)
	single(`[{"jsonrpc":"2.0","method":"get_data","id":1},]`, -32700)
	single(`[{"jsonrpc":"2.0","method":"get_data","id":1}`, -32700)
	single(`[1,2,3,4,5,6]`, -32600) // over MaxBatch: one error, not an array

	f := func(in string, want ...string) { // want: "id:code" per response, any order
		t.Helper()
		rs := parseBatch(t, e.Process(nil, []byte(in)))
		got := map[string]int{}
		for _, r := range rs {
			code := 0
			if r.Error != nil {
				code = r.Error.Code
			}
			got[string(r.ID)+":"+strconv.Itoa(code)]++
		}
		for _, w := range want {
			if got[w]--; got[w] < 0 {
				t.Fatalf("%s: missing %s in %v", in, w, rs)
			}
		}
		if len(rs) != len(want) {
			t.Fatalf("%s: %d responses, want %d", in, len(rs), len(want))
		}
	}
	f(`[1,2,3]`, "null:-32600", "null:-32600", "null:-32600")
	f(`[[]]`, "null:-32600")
	f(`[[{"jsonrpc":"2.0","method":"get_data","id":1}]]`, "null:-32600")
	f(`[1,2,3,4,5]`, "null:-32600", "null:-32600", "null:-32600", "null:-32600", "null:-32600")
	f(`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},`+
		`{"jsonrpc":"2.0","result":1,"id":9},{"foo":"boo"},{"jsonrpc":"2.0","method":"panic","id":6}]`,
		`"1":0`, "null:-32600", "6:-32603")
	f(`[{"jsonrpc":"2.0","method":"sleep","params":[5],"id":1},{"jsonrpc":"2.0","method":"sleep","params":[1],"id":2},{"jsonrpc":"2.0","method":"get_data","id":3}]`,
		"1:0", "2:0", "3:0")
}

// TestBatchConcurrent proves that blocking batch members run at the same
// time: each waits until all of them have started, which a serial engine
// could never satisfy (it would time out and answer an error).
func TestBatchConcurrent(t *testing.T) {
	const n = 8
	var mu sync.Mutex
	started := 0
	all := make(chan struct{})
	rendezvous := dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
		mu.Lock()
		if started++; started == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			return append(dst, "true"...), nil
		case <-time.After(5 * time.Second):
			return dst, dispatch.NewError(-1, "members did not run concurrently", nil)
		}
	})
	e := newDemo(t, nil, dispatch.Method{Name: "rendezvous", Handler: rendezvous})
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"jsonrpc":"2.0","method":"rendezvous","id":` + strconv.Itoa(i) + `}`)
	}
	b.WriteByte(']')
	rs := parseBatch(t, e.Process(nil, []byte(b.String())))
	if len(rs) != n {
		t.Fatalf("%d responses, want %d", len(rs), n)
	}
	for _, r := range rs {
		if r.Error != nil || string(r.Result) != "true" {
			t.Fatalf("member %s: %+v", r.ID, r.Error)
		}
	}
}

func TestBatchLimitDefault(t *testing.T) {
	e := newDemo(t, nil)
	member := `{"jsonrpc":"2.0","method":"get_data","id":1}`
	at := "[" + strings.TrimSuffix(strings.Repeat(member+",", 1000), ",") + "]"
	if rs := parseBatch(t, e.Process(nil, []byte(at))); len(rs) != 1000 {
		t.Fatalf("1000 members: %d responses", len(rs))
	}
	over := "[" + strings.TrimSuffix(strings.Repeat("1,", 100000), ",") + "]"
	r := parseOne(t, e.Process(nil, []byte(over)))
	if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(string(r.Error.Data), "1000") {
		t.Fatalf("100000 members: %+v", r.Error)
	}
}
