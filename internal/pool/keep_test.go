package pool_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/pool"
)

// TestWorkersKeep: after a burst, the idle workers beyond Keep exit after
// Linger, long before IdleTimeout; Keep of them stay for IdleTimeout and are
// reused; and a worker reused within Linger is not retired.
func TestWorkersKeep(t *testing.T) {
	const burst, keep = 200, 4
	before := runtime.NumGoroutine()
	w := pool.NewWorkers(&pool.WorkersOptions{Keep: keep, Linger: 20 * time.Millisecond, IdleTimeout: time.Hour})
	defer w.Stop()
	run := func(n int) {
		bs := make([]*blocker, n)
		for i := range bs {
			bs[i] = newBlocker()
			if !w.Submit(bs[i]) {
				t.Fatal("Submit refused")
			}
			recv(t, bs[i].started, "task start")
		}
		for _, b := range bs {
			close(b.release)
		}
	}
	run(burst)
	start := time.Now()
	waitFor(t, "the burst's workers to exit", func() bool { return w.Running() == keep })
	if d := time.Since(start); d > time.Second {
		t.Errorf("the workers beyond Keep took %v to exit", d)
	}
	// A worker counts itself out of Running before its goroutine returns:
	// under -race on a loaded machine one was still on its way out here.
	waitFor(t, "the exited workers' goroutines to end (Keep and the cleaner left)", func() bool {
		return runtime.NumGoroutine()-before <= keep+1
	})
	time.Sleep(100 * time.Millisecond) // 5 Lingers: the kept ones stay
	if w.Running() != keep || w.Idle() != keep {
		t.Fatalf("Running %d Idle %d, want %d idle", w.Running(), w.Idle(), keep)
	}
	run(keep) // reuses them
	if w.Running() != keep {
		t.Fatalf("Running %d after reusing the kept workers, want %d", w.Running(), keep)
	}

	// Keep < 0: none is kept; all exit after Linger.
	w2 := pool.NewWorkers(&pool.WorkersOptions{Keep: -1, Linger: 20 * time.Millisecond, IdleTimeout: time.Hour})
	defer w2.Stop()
	b := newBlocker()
	w2.Submit(b)
	recv(t, b.started, "task start")
	close(b.release)
	waitFor(t, "the worker to exit", func() bool { return w2.Running() == 0 })
}

// TestWorkersLingerReuse: under a steady trickle of tasks, workers beyond
// Keep are reused rather than retired and started again.
func TestWorkersLingerReuse(t *testing.T) {
	w := pool.NewWorkers(&pool.WorkersOptions{Keep: -1, Linger: 200 * time.Millisecond})
	defer w.Stop()
	for range 20 {
		b := newBlocker()
		w.Submit(b)
		recv(t, b.started, "task start")
		close(b.release)
		waitFor(t, "the worker to go idle", func() bool { return w.Idle() == 1 })
		time.Sleep(5 * time.Millisecond)
		if w.Running() != 1 {
			t.Fatalf("Running %d, want the one worker reused", w.Running())
		}
	}
}
