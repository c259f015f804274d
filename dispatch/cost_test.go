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
	"github.com/jetrpc/jetrpc/internal/engineconn"
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
// sends the rest of that batch to the workers; a second unlearns the method.
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
	// Unlearned by its second slow run at the latest: a batch after that
	// goes to the workers from its first member.
	e.Process(nil, batch)
	if here := count(w.take(me)); here > 1 {
		t.Errorf("after a slow run, %d of 8 members ran on the caller, want at most the first", here)
	}
	e.Process(nil, batch)
	if here := count(w.take(me)); here != 0 {
		t.Errorf("after two slow runs, %d of 8 members ran on the caller, want 0", here)
	}
}

// TestQuickOnReader: once a method that may block has proved quick, its
// calls and batches run on the connection's reading goroutine
// (RouteInline, answered at once); a slow run there sends it back to the
// workers, and a method that calls the peer never runs there.
func TestQuickOnReader(t *testing.T) {
	var w where
	e := newDemo(t, nil, dispatch.Method{Name: "q", Handler: w.handler()},
		dispatch.Method{Name: "p", Handler: w.handler(), CallsPeer: true})
	conn := newConn(e, nil, false)
	defer conn.Close()
	call := func(name string) ([]byte, engineconn.Route) {
		return try(conn, nil, []byte(`{"jsonrpc":"2.0","method":"`+name+`","id":1}`))
	}
	if _, route := call("q"); route != engineconn.RouteWorker {
		t.Fatalf("before learning: route %d, want RouteWorker", route)
	}
	// learn runs quick batches until a call of q routes to the reader.
	learn := func() {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			e.Process(nil, nBatch("q", 8))
			e.Process(nil, nBatch("p", 8))
			if _, route := call("q"); route == engineconn.RouteInline {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("after 5 s of quick runs, a call is still routed to a worker")
			}
		}
	}
	learn()
	if out, route := call("q"); route != engineconn.RouteInline || !strings.Contains(string(out), `"result"`) {
		t.Fatalf("learned call: route %d, %q; want it answered on the reader", route, out)
	}
	if out, route := try(conn, nil, nBatch("q", 2)); route != engineconn.RouteInline || len(parseBatch(t, out)) != 2 {
		t.Fatalf("learned batch: route %d, %q; want it answered on the reader", route, out)
	}
	if _, route := call("p"); route != engineconn.RouteWorker {
		t.Fatalf("a method that calls the peer: route %d, want RouteWorker", route)
	}
	for range 10 { // toward its best score
		call("q")
	}
	// On a loaded machine a quick run can be preempted past the bound
	// and count as slow: make sure q is still learned when it turns slow.
	learn()
	w.mu.Lock()
	w.slow = true
	w.mu.Unlock()
	slowHere := 0
	for range 5 {
		if _, route := call("q"); route != engineconn.RouteInline {
			break
		}
		slowHere++
	}
	if slowHere < 1 || slowHere > 2 {
		t.Fatalf("the method turned slow: %d of its runs on the reader, want 1 or 2 before it goes to the workers", slowHere)
	}
}
