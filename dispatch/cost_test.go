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
	"github.com/jetrpc/jetrpc/internal/clock"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// where records whether a method's calls ran on the test's own goroutine:
// a call's stack holds the test function then (runtime.Callers is cheap
// enough for a quick run; the frames are read after the batch).
//
// Its handler allocates nothing while the records fit (it keeps the stacks
// in arrays made once): a timed run that allocates while the collector
// marks may assist it for longer than a quick run lasts (quickRun), which
// on a loaded machine (CI's packages run two at a time) had TestBatchClock
// find its quick method slow in every try. The tests that time runs start
// each try with settle.
type where struct {
	mu      sync.Mutex
	stacks  []record
	slow    bool            // calls sleep 2 ms: longer than a quick run
	slowIDs map[string]bool // the next call with each of these ids sleeps 2 ms
}

// record is the stack of one call.
type record struct {
	pcs [64]uintptr
	n   int
}

// maxRecords is how many calls' stacks where keeps without allocating.
const maxRecords = 1024

func (w *where) handler() dispatch.Handler {
	return dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
		id := dispatch.RequestID(ctx)
		w.mu.Lock()
		if w.stacks == nil {
			w.stacks = make([]record, 0, maxRecords)
		}
		w.stacks = append(w.stacks, record{})
		r := &w.stacks[len(w.stacks)-1]
		r.n = runtime.Callers(2, r.pcs[:])
		slow := w.slow || w.slowIDs[string(id)]
		delete(w.slowIDs, string(id))
		w.mu.Unlock()
		if slow {
			time.Sleep(2 * time.Millisecond)
		}
		return append(dst, "1"...), nil
	})
}

// setSlow makes the calls from now on slow or quick.
func (w *where) setSlow(slow bool) {
	w.mu.Lock()
	w.slow = slow
	w.mu.Unlock()
}

// slowOnce makes the next call with each of ids slow.
func (w *where) slowOnce(ids ...string) {
	w.mu.Lock()
	w.slowIDs = map[string]bool{}
	for _, id := range ids {
		w.slowIDs[id] = true
	}
	w.mu.Unlock()
}

// take returns, for each call since the last take, whether it ran on the
// goroutine of the test function named test.
func (w *where) take(test string) []bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	var here []bool
	for i := range w.stacks {
		r := &w.stacks[i]
		on := false
		frames := runtime.CallersFrames(r.pcs[:r.n])
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
	w.stacks = w.stacks[:0]
	return here
}

// settle runs the collector to its end, so that the timed runs that follow
// (which allocate nothing) meet no mark phase and no assist.
func settle() { runtime.GC() }

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
	// waiting for a core) a few more batches. learn goes on to the best
	// score, so that one run preempted past the bound unlearns nothing.
	learn := func() {
		t.Helper()
		w.setSlow(false)
		deadline := time.Now().Add(5 * time.Second)
		for here, best := 0, 0; here != 8 || best < 8; here = count(w.take(me)) {
			if here == 8 {
				best++ // 8 batches of 8: 64 quick runs in a row
			} else {
				best = 0
			}
			if time.Now().After(deadline) {
				t.Fatalf("after 5 s of batches, %d of 8 members ran on the caller, want 8", here)
			}
			e.Process(nil, batch)
		}
		w.setSlow(true)
	}
	// A member turns slow: the first runs here, the other seven on workers.
	var here []bool
	for try := 0; try < 3 && (try == 0 || count(here) == 0); try++ {
		settle()
		// (none here: unlearned by a preempted run before it turned slow;
		// once more)
		learn()
		if rs := parseBatch(t, e.Process(nil, batch)); len(rs) != 8 {
			t.Fatalf("%d answers, want 8", len(rs))
		}
		here = w.take(me)
	}
	if len(here) != 8 || !here[0] || count(here) != 1 {
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

// TestBatchSlowBorrowed: a quick member timed from the end of the one
// before that looks slow is not counted (what made it slow may have been
// before its run: a preemption, the collector), as on a reading goroutine;
// the next one is timed on its own, and only a slow run timed so sends
// the rest of the batch to the workers.
func TestBatchSlowBorrowed(t *testing.T) {
	const me = "TestBatchSlowBorrowed"
	var w where
	e := newDemo(t, nil, dispatch.Method{Name: "q", Handler: w.handler()})
	batch := nBatch("q", 8)
	learn := func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for best := 0; best < 8; { // 8 batches of 8 in a row on the caller: its best score
			if time.Now().After(deadline) {
				t.Fatal("after 10 s of batches, q has not proved quick")
			}
			e.Process(nil, batch)
			if count(w.take(me)) == 8 {
				best++
			} else {
				best = 0
			}
		}
	}
	// run runs the batch with the members of slow ids slow once, and
	// reports whether exactly the first n members ran on the caller. A
	// quick run preempted past the bound on a loaded machine can send
	// members to the workers too: one of five tries must show it.
	run := func(n int, slow ...string) bool {
		t.Helper()
		for range 5 {
			learn()
			w.slowOnce(slow...)
			if rs := parseBatch(t, e.Process(nil, batch)); len(rs) != 8 {
				t.Fatalf("%d answers, want 8", len(rs))
			}
			here := w.take(me)
			ok := len(here) == 8
			for i, on := range here {
				ok = ok && on == (i < n)
			}
			if ok {
				return true
			}
		}
		return false
	}
	if !run(8, "3") {
		t.Error("one slow member timed from the end of the one before sent the rest of the batch to the workers")
	}
	if !run(5, "3", "4") {
		t.Error("a slow member timed on its own (after one not counted) did not send the rest of the batch to the workers")
	}
}

// TestBatchClock: a batch's quick members are timed one after another,
// each from the end of the one before; an Inline member between them is
// not counted in the next one's time (else the nap members below, 2 ms
// each, would send the rest of the batch to the workers).
func TestBatchClock(t *testing.T) {
	const me = "TestBatchClock"
	var w where
	e := newDemo(t, nil, dispatch.Method{Name: "q", Handler: w.handler()},
		dispatch.Method{Name: "nap", Inline: true, Handler: dispatch.HandlerFunc(
			func(_ context.Context, _, dst []byte) ([]byte, error) {
				time.Sleep(2 * time.Millisecond) // an Inline method that breaks its promise
				return append(dst, "1"...), nil
			})})
	batch := nBatch("q", 8)
	learn := func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for here := 0; here != 8; here = count(w.take(me)) {
			if time.Now().After(deadline) {
				t.Fatalf("after 10 s of batches, %d of 8 members ran on the caller, want 8", here)
			}
			e.Process(nil, batch)
		}
		for range 8 { // to its best score
			e.Process(nil, batch)
		}
		w.take(me)
	}
	var b strings.Builder
	b.WriteByte('[')
	for i := range 6 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"jsonrpc":"2.0","method":"nap","id":"n` + strconv.Itoa(i) + `"},` +
			`{"jsonrpc":"2.0","method":"q","id":` + strconv.Itoa(i) + `}`)
	}
	b.WriteByte(']')
	mixed := []byte(b.String())
	// A preempted quick run can still send the rest of a batch to the
	// workers on a loaded machine: one of five tries must keep all six q
	// members on the caller; counting the naps would fail every try.
	ok := false
	for try := 0; try < 5 && !ok; try++ {
		settle()
		learn()
		if rs := parseBatch(t, e.Process(nil, mixed)); len(rs) != 12 {
			t.Fatalf("%d answers, want 12", len(rs))
		}
		here := w.take(me)
		ok = len(here) == 6 && count(here) == 6
	}
	if !ok {
		t.Error("q members after an Inline member ran on workers: the Inline run was counted in their time")
	}
}

// TestQuickOnReader: once a method that may block has proved quick, its
// calls and batches run on the connection's reading goroutine
// (RouteInline, answered at once); a slow run there sends it back to the
// workers, and a method that calls the peer never runs there.
func TestQuickOnReader(t *testing.T) {
	clock.Settle() // on the clock the engine keeps (the TSC where it is safe)
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
				// To its best score: on a loaded machine one run
				// preempted past the bound then unlearns nothing.
				for range 64 {
					call("q")
				}
				if _, route := call("q"); route == engineconn.RouteInline {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatal("after 5 s of quick runs, a call is still routed to a worker")
			}
		}
	}
	learn()
	out, route := call("q")
	for try := 0; try < 3 && route != engineconn.RouteInline; try++ { // preempted twice in a row
		settle()
		learn()
		out, route = call("q")
	}
	if route != engineconn.RouteInline || !strings.Contains(string(out), `"result"`) {
		t.Fatalf("learned call: route %d, %q; want it answered on the reader", route, out)
	}
	if out, route := try(conn, nil, nBatch("q", 2)); route != engineconn.RouteInline || len(parseBatch(t, out)) != 2 {
		t.Fatalf("learned batch: route %d, %q; want it answered on the reader", route, out)
	}
	if _, route := call("p"); route != engineconn.RouteWorker {
		t.Fatalf("a method that calls the peer: route %d, want RouteWorker", route)
	}
	// On a loaded machine a quick run can be preempted past the bound
	// and count as slow: make sure q is still learned when it turns slow.
	learn()
	w.setSlow(true)
	slowHere := 0
	for try := 0; try < 2 && slowHere == 0; try++ { // 0: unlearned by a preempted run before it turned slow
		if try > 0 {
			w.setSlow(false)
			learn()
			w.setSlow(true)
		}
		for range 5 {
			if _, route := call("q"); route != engineconn.RouteInline {
				break
			}
			slowHere++
		}
	}
	if slowHere < 1 || slowHere > 2 {
		t.Fatalf("the method turned slow: %d of its runs on the reader, want 1 or 2 before it goes to the workers", slowHere)
	}
}

// TestReaderClock: on the reading goroutine a run in a burst
// (Conn.TryBuffered) is timed from the end of the run before it. A wait
// before a message handed to Try, an Inline method's run and a routed
// message between two runs are never counted in the next run's time; a
// method that turns slow in a burst is sent back to the workers by its
// third run at the latest.
func TestReaderClock(t *testing.T) {
	clock.Settle() // on the clock the engine keeps (the TSC where it is safe)
	var w where
	e := newDemo(t, nil, dispatch.Method{Name: "q", Handler: w.handler()},
		dispatch.Method{Name: "nap", Inline: true, Handler: dispatch.HandlerFunc(
			func(_ context.Context, _, dst []byte) ([]byte, error) {
				time.Sleep(2 * time.Millisecond) // an Inline method that breaks its promise
				return append(dst, "1"...), nil
			})},
		dispatch.Method{Name: "w", Handler: dispatch.HandlerFunc( // never learned: it calls the peer
			func(_ context.Context, _, dst []byte) ([]byte, error) { return append(dst, "1"...), nil }),
			CallsPeer: true})
	conn := newConn(e, nil, false)
	defer conn.Close()
	msg := func(name string) []byte { return []byte(`{"jsonrpc":"2.0","method":"` + name + `","id":1}`) }
	buffered := func(name string) engineconn.Route {
		dst, r := conn.TryBuffered(nil, msg(name))
		if r == nil {
			if !strings.Contains(string(dst), `"result"`) {
				t.Fatalf("%s: %q", name, dst)
			}
			return engineconn.RouteInline
		}
		route := r.Route()
		conn.Run(nil, r)
		return route
	}
	learn := func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			e.Process(nil, nBatch("q", 8))
			if _, route := try(conn, nil, msg("q")); route == engineconn.RouteInline {
				for range 64 { // to its best score
					try(conn, nil, msg("q"))
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("after 10 s of quick runs, a call is still routed to a worker")
			}
		}
	}
	// Each case waits or runs something slow before every run of q, 6
	// times: counted in q's time, that would unlearn it by its second run,
	// every time. On a loaded machine a quick run can be preempted past
	// the bound now and then, so a case passes when one of five tries
	// keeps q learned throughout.
	cases := []struct {
		name   string
		before func()
		next   func() engineconn.Route
	}{
		{"a wait before Try", func() { time.Sleep(2 * time.Millisecond) }, func() engineconn.Route {
			_, route := try(conn, nil, msg("q"))
			return route
		}},
		{"an Inline run in the burst", func() { buffered("nap") }, func() engineconn.Route { return buffered("q") }},
		{"a routed message in the burst", func() {
			dst, r := conn.TryBuffered(nil, msg("w"))
			if r == nil {
				t.Fatalf("w ran on the reader: %q", dst)
			}
			time.Sleep(2 * time.Millisecond) // the transport starts it elsewhere
			conn.Run(nil, r)
		}, func() engineconn.Route { return buffered("q") }},
	}
	for _, c := range cases {
		ok := false
		for try := 0; try < 5 && !ok; try++ {
			settle()
			learn()
			ok = true
			for range 6 {
				c.before()
				if c.next() != engineconn.RouteInline {
					ok = false
					break
				}
			}
		}
		if !ok {
			t.Errorf("%s: q was unlearned, so the wait was counted in its runs", c.name)
		}
	}
	// Slow runs in a burst are slow.
	learn()
	w.setSlow(true)
	slowHere := 0
	for try := 0; try < 3 && slowHere == 0; try++ { // 0: unlearned by a preempted run before it turned slow
		settle()
		if try > 0 {
			w.setSlow(false)
			learn()
			w.setSlow(true)
		}
		for range 5 {
			if buffered("q") != engineconn.RouteInline {
				break
			}
			slowHere++
		}
	}
	// The first slow run in a burst is timed from the end of the run
	// before and not counted (readClock); the next ones are timed alone.
	if slowHere < 1 || slowHere > 3 {
		t.Fatalf("q turned slow in a burst: %d of its runs on the reader, want 1 to 3", slowHere)
	}
}
