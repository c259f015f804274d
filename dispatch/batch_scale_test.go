package dispatch_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/internal/pool"
)

// batchOfCalls returns a batch of n calls of method with params, ids 0 to n-1.
func batchOfCalls(n int, method, params string) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `,"id":` + strconv.Itoa(i) + `}`)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// blockFor is a method that may block (not Inline): it sleeps d and reports
// how many of its calls ran at once at most.
type blockFor struct {
	d             time.Duration
	running, peak atomic.Int32
}

func (h *blockFor) ServeRPC(ctx context.Context, _, dst []byte) ([]byte, error) {
	n := h.running.Add(1)
	for p := h.peak.Load(); n > p && !h.peak.CompareAndSwap(p, n); p = h.peak.Load() {
	}
	time.Sleep(h.d)
	h.running.Add(-1)
	return append(dst, "true"...), nil
}

// goroutineFloor is what a batch of blocking calls may leave behind: the
// idle workers the pool keeps, and its cleaner.
const goroutineFloor = pool.DefaultKeep + 1

// TestBatchFanOut: a batch of 1,000 or 10,000 blocking calls runs at most
// BatchFanOut of them at once (and as many as that), every call is
// answered, and within a second of its answer the goroutines are back to
// what they were plus goroutineFloor.
func TestBatchFanOut(t *testing.T) {
	for _, n := range []int{1000, 10000} {
		h := &blockFor{d: time.Millisecond}
		e := newDemo(t, &dispatch.Options{MaxBatch: 10000}, dispatch.Method{Name: "block", Handler: h})
		e.Freeze()
		before := runtime.NumGoroutine()
		out := e.Process(nil, batchOfCalls(n, "block", "[]"))
		if got := strings.Count(string(out), `"result":true`); got != n {
			t.Fatalf("%d members: %d answered", n, got)
		}
		if p := h.peak.Load(); p > dispatch.DefaultBatchFanOut || p < dispatch.DefaultBatchFanOut/2 {
			t.Errorf("%d members: %d ran at once, want up to %d", n, p, dispatch.DefaultBatchFanOut)
		}
		answered := time.Now()
		for runtime.NumGoroutine() > before+goroutineFloor && time.Since(answered) < 2*time.Second {
			time.Sleep(5 * time.Millisecond)
		}
		d := time.Since(answered)
		if g := runtime.NumGoroutine() - before; g > goroutineFloor || d > time.Second {
			t.Errorf("%d members: %d goroutines more than before %v after the answer, want at most %d within 1s",
				n, g, d.Round(time.Millisecond), goroutineFloor)
		}
		t.Logf("%d members: back to %d goroutines above the start after %v", n, runtime.NumGoroutine()-before, d.Round(time.Millisecond))
	}
}

// TestBatchSleeps: a batch of 100 calls of sleep 50 ms runs them all at
// once: it is answered in about 50 ms (under 150 ms on a loaded machine).
func TestBatchSleeps(t *testing.T) {
	e := newDemo(t, nil)
	msg := batchOfCalls(100, "sleep", "[50]")
	e.Process(nil, batchOfCalls(2, "sleep", "[1]")) // the workers' first goroutines
	start := time.Now()
	out := e.Process(nil, msg)
	d := time.Since(start)
	if got := strings.Count(string(out), `"result":50`); got != 100 {
		t.Fatalf("%d of 100 answered: %.300s", got, out)
	}
	if d >= 150*time.Millisecond {
		t.Errorf("100 sleeps of 50 ms took %v, want under 150 ms", d)
	}
	t.Logf("100 sleeps of 50 ms: %v", d.Round(time.Millisecond))
}

// TestBatchStateReuse: batches of every kind one after another on one
// engine, so on its pooled states: each is answered in full.
func TestBatchStateReuse(t *testing.T) {
	e := newDemo(t, &dispatch.Options{BatchFanOut: 2})
	f := func(in string, want int) {
		t.Helper()
		if rs := parseBatch(t, e.Process(nil, []byte(in))); len(rs) != want {
			t.Fatalf("%s: %d responses, want %d", in, len(rs), want)
		}
	}
	sleeps := string(batchOfCalls(5, "sleep", "[1]"))
	for range 3 {
		f(sleeps, 5)
		f(`[1,2,3]`, 3)
		f(`[{"jsonrpc":"2.0","method":"sleep","params":[1],"id":1},{"jsonrpc":"2.0","method":"sleep","params":[1],"id":2},`+
			`{"jsonrpc":"2.0","method":"sleep","params":[0]},{"jsonrpc":"2.0","method":"get_data","id":3}]`, 3)
		f(`[[],{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":"s"}]`, 2)
	}
}
