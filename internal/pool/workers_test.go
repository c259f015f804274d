package pool_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/pool"
)

// waitFor polls cond for up to 5s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// recv waits up to 5s for a value on ch.
func recv(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// counted is a task that records how often it ran.
type counted struct {
	runs atomic.Int32
	g    *sync.WaitGroup
}

func (c *counted) Run() {
	c.runs.Add(1)
	c.g.Done()
}

func TestWorkersRunEachTaskOnce(t *testing.T) {
	w := pool.NewWorkers(&pool.WorkersOptions{Max: 8})
	defer w.Stop()
	var g sync.WaitGroup
	tasks := make([]counted, 2000)
	var wg sync.WaitGroup
	var inline atomic.Int32
	for p := range 4 { // 4 submitters at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := p; i < len(tasks); i += 4 {
				tasks[i].g = &g
				g.Add(1)
				if !w.Submit(&tasks[i]) {
					inline.Add(1)
					tasks[i].Run() // saturated: the caller runs it
				}
			}
		}()
	}
	wg.Wait()
	g.Wait()
	for i := range tasks {
		if n := tasks[i].runs.Load(); n != 1 {
			t.Fatalf("task %d ran %d times", i, n)
		}
	}
	if r := w.Running(); r > 8 {
		t.Fatalf("Running() = %d, over Max 8", r)
	}
	t.Logf("%d of %d ran inline", inline.Load(), len(tasks))
}

// blocker is a task that signals it started and blocks until released.
type blocker struct {
	started chan struct{}
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{started: make(chan struct{}, 1), release: make(chan struct{})}
}

func (b *blocker) Run() {
	b.started <- struct{}{}
	<-b.release
}

func TestWorkersSaturated(t *testing.T) {
	const max = 5
	w := pool.NewWorkers(&pool.WorkersOptions{Max: max})
	defer w.Stop()
	bs := make([]*blocker, max)
	for i := range bs {
		bs[i] = newBlocker()
		if !w.Submit(bs[i]) {
			t.Fatalf("Submit %d refused below Max", i)
		}
		recv(t, bs[i].started, "task start")
	}
	if w.Running() != max || w.Busy() != max || w.Idle() != 0 {
		t.Fatalf("Running %d Busy %d Idle %d, want %d, %d and 0", w.Running(), w.Busy(), w.Idle(), max, max)
	}
	ran := false
	if w.Submit(pool.TaskFunc(func() { ran = true })) {
		t.Fatal("Submit accepted a task with all Max workers busy")
	}

	// Freeing one worker makes room again, without a new goroutine.
	close(bs[0].release)
	waitFor(t, "an idle worker", func() bool { return w.Idle() == 1 })
	b := newBlocker()
	if !w.Submit(b) {
		t.Fatal("Submit refused with a worker idle")
	}
	recv(t, b.started, "task start")
	if w.Running() != max {
		t.Fatalf("Running() = %d, want %d", w.Running(), max)
	}
	close(b.release)
	for _, b := range bs[1:] {
		close(b.release)
	}
	w.Stop()
	if ran {
		t.Fatal("refused task ran")
	}
}

func TestWorkersIdleTimeout(t *testing.T) {
	before := runtime.NumGoroutine()
	w := pool.NewWorkers(&pool.WorkersOptions{Max: 10, IdleTimeout: 5 * time.Millisecond})
	defer w.Stop()
	bs := make([]*blocker, 3)
	for i := range bs {
		bs[i] = newBlocker()
		w.Submit(bs[i])
		recv(t, bs[i].started, "task start")
	}
	for _, b := range bs {
		close(b.release)
	}
	waitFor(t, "idle workers to exit", func() bool { return w.Running() == 0 })
	// The cleaner goes too once no worker is left.
	waitFor(t, "the cleaner to exit", func() bool { return runtime.NumGoroutine() <= before })

	// The pool still works after its workers expired.
	done := make(chan struct{})
	if !w.Submit(pool.TaskFunc(func() { close(done) })) {
		t.Fatal("Submit refused after idle workers exited")
	}
	recv(t, done, "task after expiry")
}

func TestWorkersStop(t *testing.T) {
	before := runtime.NumGoroutine()
	w := pool.NewWorkers(nil)
	if w.Max() != pool.DefaultMaxWorkers {
		t.Fatalf("Max() = %d, want the default %d", w.Max(), pool.DefaultMaxWorkers)
	}
	busy := newBlocker()
	w.Submit(busy)
	recv(t, busy.started, "task start")
	var g sync.WaitGroup
	for range 20 {
		g.Add(1)
		w.Submit(pool.TaskFunc(g.Done))
	}
	g.Wait()

	// Stop waits for the busy task.
	stopped := make(chan struct{})
	go func() {
		w.Stop()
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a task was running")
	case <-time.After(20 * time.Millisecond):
	}
	if w.Submit(pool.TaskFunc(func() { t.Error("task ran after Stop") })) {
		t.Fatal("Submit accepted a task after Stop")
	}
	close(busy.release)
	recv(t, stopped, "Stop")
	w.Stop() // again: no-op

	if w.Running() != 0 {
		t.Fatalf("Running() = %d after Stop", w.Running())
	}
	waitFor(t, "goroutines to exit", func() bool { return runtime.NumGoroutine() <= before })
}

func TestWorkersStopUnused(t *testing.T) {
	before := runtime.NumGoroutine()
	w := pool.NewWorkers(&pool.WorkersOptions{IdleTimeout: time.Millisecond})
	w.Stop()
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Stop, %d before", n, before)
	}
}

func TestWorkersConcurrentStop(t *testing.T) {
	before := runtime.NumGoroutine()
	w := pool.NewWorkers(&pool.WorkersOptions{Max: 4, IdleTimeout: time.Millisecond})
	var wg sync.WaitGroup
	var runs, accepted atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				if w.Submit(pool.TaskFunc(func() { runs.Add(1) })) {
					accepted.Add(1)
				}
			}
		}()
	}
	time.Sleep(time.Millisecond)
	w.Stop()
	wg.Wait()
	if runs.Load() != accepted.Load() {
		t.Fatalf("%d tasks accepted, %d ran", accepted.Load(), runs.Load())
	}
	waitFor(t, "goroutines to exit", func() bool { return runtime.NumGoroutine() <= before })
}
