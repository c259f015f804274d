package dispatch_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

// batchOf joins members into a batch array.
func batchOf(members ...string) []byte {
	return []byte("[" + strings.Join(members, ",") + "]")
}

func echoCall(method string, id int, size int) string {
	return `{"jsonrpc":"2.0","method":"` + method + `","params":["` + strings.Repeat("x", size) +
		`"],"id":` + strconv.Itoa(id) + `}`
}

// slowEcho is echo as a non-inline method: batch members run on workers.
var slowEcho = dispatch.Method{Name: "slow_echo", Handler: dispatch.HandlerFunc(
	func(_ context.Context, params, dst []byte) ([]byte, error) { return append(dst, params...), nil })}

// TestMaxBatchResponse: the responses of a batch stay within
// MaxBatchResponse: the calls whose responses do not fit get -32000
// "Response too large", invalid members still get -32600, notifications
// still run, and the array stays under the bound plus one short error per
// member.
func TestMaxBatchResponse(t *testing.T) {
	const limit = 600
	var notes atomic.Int32
	note := dispatch.Method{Name: "note", Inline: true, Handler: dispatch.HandlerFunc(
		func(_ context.Context, _, dst []byte) ([]byte, error) { notes.Add(1); return dst, nil })}
	e := newDemo(t, &dispatch.Options{MaxBatchResponse: limit}, slowEcho, note)
	for _, method := range []string{"echo", "slow_echo"} {
		t.Run(method, func(t *testing.T) {
			notes.Store(0)
			ms := []string{`1`} // answered with 111 bytes
			for i := range 10 { // each response is 138 bytes: 3 more fit
				ms = append(ms, echoCall(method, i, 100), `{"jsonrpc":"2.0","method":"note"}`)
			}
			out := e.Process(nil, batchOf(ms...))
			rs := parseBatch(t, out)
			if len(rs) != 11 {
				t.Fatalf("%d responses, want 11: %s", len(rs), out)
			}
			results, tooLarge, invalid := 0, 0, 0
			ids := map[string]bool{}
			for _, r := range rs {
				ids[string(r.ID)] = true
				switch {
				case r.Error == nil:
					results++
				case r.Error.Code == -32000:
					tooLarge++
					if r.Error.Message != "Response too large" || string(r.Error.Data) != `"batch response over 600 bytes"` {
						t.Errorf("error %+v", r.Error)
					}
				case r.Error.Code == -32600:
					invalid++
				default:
					t.Errorf("unexpected error %+v", r.Error)
				}
			}
			if results != 3 || tooLarge != 7 || invalid != 1 || len(ids) != 11 {
				t.Errorf("%d results, %d too large, %d invalid, %d ids: %s", results, tooLarge, invalid, len(ids), out)
			}
			if notes.Load() != 10 {
				t.Errorf("%d notifications ran, want 10", notes.Load())
			}
			if len(out) > limit+11*100 {
				t.Errorf("batch response of %d bytes", len(out))
			}
		})
	}
}

// TestMaxBatchResponseDefault: the default bound, 16 MiB, lets ordinary
// batches through and cuts a batch of 1000 calls answering 64 KiB each.
func TestMaxBatchResponseDefault(t *testing.T) {
	if dispatch.DefaultMaxBatchResponse != 16<<20 {
		t.Fatalf("DefaultMaxBatchResponse %d", dispatch.DefaultMaxBatchResponse)
	}
	big := dispatch.Method{Name: "big", Inline: true, Handler: dispatch.HandlerFunc(
		func(_ context.Context, _, dst []byte) ([]byte, error) {
			dst = append(dst, '"')
			dst = append(dst, strings.Repeat("b", 64<<10)...)
			return append(dst, '"'), nil
		})}
	e := newDemo(t, nil, big)
	var ms []string
	for i := range 1000 {
		ms = append(ms, `{"jsonrpc":"2.0","method":"big","id":`+strconv.Itoa(i)+`}`)
	}
	out := e.Process(nil, batchOf(ms...))
	if len(out) > 16<<20+1000*120 {
		t.Fatalf("batch response of %d bytes", len(out))
	}
	rs := parseBatch(t, out)
	ok := 0
	for _, r := range rs {
		if r.Error == nil {
			ok++
		}
	}
	if len(rs) != 1000 || ok != 255 {
		t.Fatalf("%d responses, %d results (want 1000, 255)", len(rs), ok)
	}
}

// TestCallTimeout: a non-inline call over CallTimeout has its context
// cancelled and is answered -32003, also when its handler ignores the
// context; inline methods are not timed; calls within the bound are answered
// as usual, in batches too.
func TestCallTimeout(t *testing.T) {
	var cancelled atomic.Int32
	stubborn := dispatch.Method{Name: "stubborn", Handler: dispatch.HandlerFunc(
		func(ctx context.Context, _, dst []byte) ([]byte, error) {
			time.Sleep(150 * time.Millisecond) // ignores ctx
			if ctx.Err() != nil {
				cancelled.Add(1)
			}
			return append(dst, "true"...), nil
		})}
	inlineSleep := dispatch.Method{Name: "inline_sleep", Inline: true, Handler: dispatch.HandlerFunc(
		func(_ context.Context, _, dst []byte) ([]byte, error) {
			time.Sleep(150 * time.Millisecond)
			return append(dst, "true"...), nil
		})}
	e := newDemo(t, &dispatch.Options{CallTimeout: 50 * time.Millisecond}, stubborn, inlineSleep)
	f := func(msg, want string) {
		t.Helper()
		if out := e.Process(nil, []byte(msg)); string(out) != want {
			t.Errorf("%s\n got %s\nwant %s", msg, out, want)
		}
	}
	timedOut := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32003,"message":"Request timed out","data":"call took longer than 50ms"}}`
	}
	start := time.Now()
	f(`{"jsonrpc":"2.0","method":"sleep","params":[5000],"id":1}`, timedOut("1"))
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a cancelled sleep returned after %v", d)
	}
	f(`{"jsonrpc":"2.0","method":"stubborn","id":2}`, timedOut("2"))
	if cancelled.Load() != 1 {
		t.Error("the handler's context was not cancelled")
	}
	f(`{"jsonrpc":"2.0","method":"sleep","params":[1],"id":3}`, `{"jsonrpc":"2.0","id":3,"result":1}`)
	f(`{"jsonrpc":"2.0","method":"inline_sleep","id":4}`, `{"jsonrpc":"2.0","id":4,"result":true}`)
	f(`{"jsonrpc":"2.0","method":"sleep","params":[5000]}`, ``)
	rs := parseBatch(t, e.Process(nil, batchOf(`{"jsonrpc":"2.0","method":"sleep","params":[5000],"id":5}`,
		`{"jsonrpc":"2.0","method":"sleep","params":[1],"id":6}`, `{"jsonrpc":"2.0","method":"subtract","params":[3,1],"id":7}`)))
	got := map[string]string{}
	for _, r := range rs {
		v := string(r.Result)
		if r.Error != nil {
			v = strconv.Itoa(r.Error.Code)
		}
		got[string(r.ID)] = v
	}
	if got["5"] != "-32003" || got["6"] != "1" || got["7"] != "2" || len(got) != 3 {
		t.Errorf("batch answers %v", got)
	}
}

// TestCallTimeoutShutdown: a call cancelled by its parent context (the
// engine closing, a client gone) is not reported as a timeout.
func TestCallTimeoutShutdown(t *testing.T) {
	e := newDemo(t, &dispatch.Options{CallTimeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	out := e.ProcessContext(ctx, nil, []byte(`{"jsonrpc":"2.0","method":"sleep","params":[5000],"id":1}`))
	if r := parseOne(t, out); r.Error == nil || r.Error.Code != -32002 {
		t.Fatalf("got %s, want -32002", out)
	}
}
