//go:build !race

package dispatch_test

import (
	"context"
	"flag"
	"log/slog"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/bench/demo"
	"github.com/jetrpc/jetrpc/dispatch"
)

// batchFloor is the fixed floor of a first batch's allocations, whatever its
// size: up to BatchFanOut slots of a batch's members on workers, the
// goroutines a fresh pool starts for them and their response buffers (under
// 1 KiB each), and the first chunks of the tables: 320 KiB.
const batchFloor = dispatch.DefaultBatchFanOut<<10 + 64<<10

// callContextBytes is what each call's own context costs (dispatch's
// context.go: 64 bytes, handed out from chunks, never reused, so that a
// handler may keep it), with some room for what the collector, which the
// chunks make run, has the pools make again.
const callContextBytes = 80

// freshEngine returns a frozen engine with the demo methods and two methods
// that may block (not Inline): "nop" answers 1 at once, so a fresh engine
// runs its first calls on the workers and the rest, once it has learned
// that they are quick, on the batch's goroutine; "wait" sleeps 100 µs, too
// long to be learned, so all of a batch of it runs on the workers.
func freshEngine(tb testing.TB) *dispatch.Engine {
	e := dispatch.New(&dispatch.Options{MaxBatch: 10000, Logger: slog.New(slog.DiscardHandler)})
	if err := demo.Register(e); err != nil {
		tb.Fatal(err)
	}
	nop := dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		return append(dst, '1'), nil
	})
	wait := dispatch.HandlerFunc(func(_ context.Context, _, dst []byte) ([]byte, error) {
		time.Sleep(100 * time.Microsecond)
		return append(dst, '1'), nil
	})
	for _, m := range []dispatch.Method{{Name: "nop", Handler: nop}, {Name: "wait", Handler: wait}} {
		if err := e.RegisterMethod(m); err != nil {
			tb.Fatal(err)
		}
	}
	e.Freeze()
	return e
}

// firstBatch measures what the first batch of msg on a fresh engine
// allocates: bytes per op (testing.Benchmark, the engine made with the timer
// stopped) and allocations (testing.AllocsPerRun, less those of making and
// closing an engine); room is the capacity of the dst given (0: nil).
func firstBatch(t *testing.T, msg []byte, room int) (bytes int64, allocs float64) {
	t.Helper()
	dst := make([]byte, 0, room)
	// Ten fresh engines are plenty (each op is one engine's first batch);
	// the default benchtime would make a thousand.
	bt := flag.Lookup("test.benchtime")
	if old := bt.Value.String(); bt.Value.Set("10x") == nil {
		defer bt.Value.Set(old)
	}
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			b.StopTimer()
			e := freshEngine(b)
			b.StartTimer()
			e.Process(dst[:0], msg)
			b.StopTimer()
			e.Close()
			b.StartTimer()
		}
	})
	if res.N == 0 {
		t.Fatal("the benchmark failed")
	}
	const runs = 10
	with := testing.AllocsPerRun(runs, func() {
		e := freshEngine(t)
		e.Process(dst[:0], msg)
		e.Close()
	})
	without := testing.AllocsPerRun(runs, func() { freshEngine(t).Close() })
	return res.AllocedBytesPerOp(), with - without
}

// TestBatchFirstAllocs: the first batch of 1,000 or 10,000 calls on a fresh
// engine allocates at most twice its size beyond batchFloor, with the
// response's room given in dst or not (dst nil: the engine makes room for a
// response as large as the batch once), for a method that runs on the
// caller's goroutine (subtract), one that the engine learns is quick (nop)
// and one that runs on the workers (wait). The allocations do not grow with
// the members, but for a table chunk per 128 of them. The next batch
// allocates nothing, up to 1,024 members. (A batch of nop, learned quick,
// can go back to the workers when one of its runs is slow on a loaded
// machine, and find that the idle workers beyond IdleWorkers have exited:
// starting them again allocates, so it is not asserted here.)
func TestBatchFirstAllocs(t *testing.T) {
	var count [2]float64
	for i, n := range []int{1000, 10000} {
		for _, method := range []string{"subtract", "nop", "wait"} {
			msg := batchOfCalls(n, method, "[42,23]")
			for _, room := range []int{2 * len(msg), 0} {
				bytes, allocs := firstBatch(t, msg, room)
				limit := int64(2*len(msg)) + batchFloor + int64(n)*callContextBytes
				if bytes > limit {
					t.Errorf("%d x %s, dst room %d: first batch %d bytes (%.2fx its %d), want at most %d",
						n, method, room, bytes, float64(bytes)/float64(len(msg)), len(msg), limit)
				}
				if method == "wait" && room > 0 {
					count[i] = allocs
				}
				t.Logf("%5d x %-8s (%6d B), dst room %7d: first batch %7d B (%.2fx), %4.0f allocs",
					n, method, len(msg), room, bytes, float64(bytes)/float64(len(msg)), allocs)
			}
		}
	}
	// 9,000 members more: 71 table chunks more, 141 chunks of call contexts,
	// and what the runtime allocates when the workers' goroutines contend (a
	// few dozen), but nothing per member.
	if grew := count[1] - count[0]; grew > 9000/16 {
		t.Errorf("the first batch of 10,000 made %.0f allocations more than of 1,000, want under 1 per 16 members", grew)
	}

	e := freshEngine(t)
	defer e.Close()
	for _, method := range []string{"subtract", "wait"} {
		msg := batchOfCalls(1000, method, "[42,23]")
		dst := make([]byte, 0, 2*len(msg))
		for range 3 {
			dst = e.Process(dst[:0], msg)
		}
		// Every call has a context of its own (safe to keep), handed out
		// from chunks of 64: one allocation per 64 members, and for wait
		// the few the runtime makes when worker goroutines come and go.
		want := 1000/64 + 1
		if method == "wait" {
			want += 12
		}
		if n := testing.AllocsPerRun(20, func() { dst = e.Process(dst[:0], msg) }); n > float64(want) {
			t.Errorf("1000 x %s, steady state: %v allocs per batch, want at most %d (a chunk of call contexts per 64 calls)",
				method, n, want)
		}
	}
}
