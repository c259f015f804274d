package dispatch_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
)

// where records whether a method's calls ran on the test's own goroutine:
// a call's stack holds the test function then (runtime.Callers is cheap
// enough for a quick run; the frames are read after the batch).
type where struct {
	mu     sync.Mutex
	stacks [][]uintptr
	slow   bool // calls sleep 2 ms: longer than a quick run
}

func (w *where) handler() dispatch.Handler {
	return dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		var pcs [64]uintptr
		n := runtime.Callers(2, pcs[:])
		w.mu.Lock()
		w.stacks = append(w.stacks, append([]uintptr(nil), pcs[:n]...))
		slow := w.slow
		w.mu.Unlock()
		if slow {
			time.Sleep(2 * time.Millisecond)
		}
		return append(dst, "1"...), nil
	})
}

// take returns, for each call since the last take, whether it ran on the
// goroutine of the test function named test.
func (w *where) take(test string) []bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	var here []bool
	for _, pcs := range w.stacks {
		on := false
		frames := runtime.CallersFrames(pcs)
		for {
			f, more := frames.Next()
			if strings.HasSuffix(f.Function, "."+test) {
				on = true
			}
			if !more {
				break
			}
		}
		here = append(here, on)
	}
	w.stacks = nil
	return here
}

func count(bs []bool) (n int) {
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func nBatch(method string, n int) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"jsonrpc":"2.0","method":"` + method + `","id":` + strconv.Itoa(i) + `}`)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// TestBatchLearnsQuick: the calls of a method that may block (plain
// Register) run on workers until the method has proved quick; then a
// batch's members run on the batch's own goroutine. A run that turns slow
// sends the rest of that batch to the workers and unlearns the method.
func TestBatchLearnsQuick(t *testing.T) {
	const me = "TestBatchLearnsQuick"
	var w where
	e := newDemo(t, nil, dispatch.Method{Name: "q", Handler: w.handler()})
	batch := nBatch("q", 8)
	e.Process(nil, batch)
	if here := count(w.take(me)); here != 0 {
		t.Fatalf("before learning, %d of 8 members ran on the caller, want 0", here)
	}
	// Learning takes 32 quick runs; on a busy machine (wall time includes
	// waiting for a core) a few more batches.
	deadline := time.Now().Add(5 * time.Second)
	for here := 0; here != 8; here = count(w.take(me)) {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s of batches, %d of 8 members ran on the caller, want 8", here)
		}
		e.Process(nil, batch)
	}
	// A member turns slow: the first runs here, the other seven on workers.
	w.mu.Lock()
	w.slow = true
	w.mu.Unlock()
	if rs := parseBatch(t, e.Process(nil, batch)); len(rs) != 8 {
		t.Fatalf("%d answers, want 8", len(rs))
	}
	if here := w.take(me); len(here) != 8 || !here[0] || count(here) != 1 {
		t.Errorf("a slow run: on the caller %v, want only the first", here)
	}
	// Unlearned: the next batch goes to the workers from its first member.
	e.Process(nil, batch)
	if here := count(w.take(me)); here != 0 {
		t.Errorf("after a slow run, %d of 8 members ran on the caller, want 0", here)
	}
}

// TestBatchQuickNotOnReader: a batch of a method learned to be quick is
// still routed off a connection's reading goroutine (it may block yet).
func TestBatchQuickNotOnReader(t *testing.T) {
	var w where
	e := newDemo(t, nil, dispatch.Method{Name: "q", Handler: w.handler()})
	for range 10 {
		e.Process(nil, nBatch("q", 8))
	}
	conn := dispatch.NewConn(e, nil, nil, false)
	defer conn.Close()
	if out, route := conn.TryProcess(nil, nBatch("q", 2)); route != dispatch.RouteWorker || len(out) != 0 {
		t.Errorf("TryProcess of a learned batch: route %d, %q; want RouteWorker and nothing run", route, out)
	}
	if out, route := conn.TryProcess(nil, []byte(`{"jsonrpc":"2.0","method":"q","id":1}`)); route != dispatch.RouteWorker || len(out) != 0 {
		t.Errorf("TryProcess of a learned call: route %d, %q; want RouteWorker", route, out)
	}
}
