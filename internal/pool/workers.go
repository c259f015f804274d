package pool

import (
	"sync"
	"time"
)

// NOTE: Workers follows fasthttp's workerPool. Each worker goroutine owns a
// channel; idle workers sit on a stack (most recently used on top, so hot
// goroutines stay hot and cold ones drift to the bottom). Submit pops the
// top worker and sends it the task; with none idle it starts a new worker,
// passing the task as an argument, while fewer than Max exist; otherwise it
// refuses. A cleaner goroutine, started with the first worker, sends nil to
// the workers it retires, which makes them exit: those idle longer than
// IdleTimeout, and, while more than Keep are idle, those at the bottom idle
// longer than Linger. So a burst (a batch of blocking calls, say) leaves at
// most Keep goroutines behind within about Linger. The cleaner sleeps until
// the oldest idle worker is due, and a worker going idle wakes it when the
// idle ones first exceed Keep; once no worker is left the cleaner exits
// too, so an unused pool holds no goroutine. Stop sends nil to every idle
// worker, lets busy ones exit when their task returns, and waits for all
// of them and the cleaner.

// Task is work to run on a worker.
type Task interface {
	Run()
}

// TaskFunc adapts a function to Task. A func value that captures variables
// allocates when it is created, so the hot path should submit a pooled
// pointer to a struct implementing Task instead.
type TaskFunc func()

// Run calls f.
func (f TaskFunc) Run() { f() }

var _ Task = TaskFunc(nil)

// Handoff is a Task whose submitter waits for it to finish before it
// submits the next one (a batch running at most so many members at once).
// The worker calls Done after Run, once it is back among the idle workers
// (or about to exit), so that the next Submit finds it idle instead of
// starting another goroutine. A Handoff run by its submitter itself (Submit
// refused it) must call Done itself.
type Handoff interface {
	Task
	Done()
}

// Defaults for WorkersOptions.
const (
	// DefaultMaxWorkers lets about 16k handlers block at once (sleeping,
	// waiting on a backend) before Submit reports saturation. A worker costs
	// a goroutine (a few KiB of stack) only while it exists.
	DefaultMaxWorkers = 1 << 14
	// DefaultIdleTimeout is how long a worker waits for work before exiting.
	DefaultIdleTimeout = 10 * time.Second
	// DefaultKeep is how many idle workers wait IdleTimeout for work: enough
	// to take sporadic blocking calls without starting goroutines, few enough
	// that what a burst leaves behind stays small (a parked worker costs its
	// goroutine, 2 to 8 KiB of stack).
	DefaultKeep = 16
	// DefaultLinger is how long an idle worker beyond Keep waits for work:
	// long enough to be reused under steady load, short enough that a burst's
	// goroutines are gone well within a second.
	DefaultLinger = 100 * time.Millisecond
)

// maxSpare bounds the structures of exited workers kept for new ones (about
// 130 bytes each), so that goroutines retired after a burst and started
// again for the next cost no allocation.
const maxSpare = 256

// minCleanWait is the shortest sleep of the cleaner (unless Linger or
// IdleTimeout is shorter), so that workers going idle a little apart are
// retired together.
const minCleanWait = 10 * time.Millisecond

// WorkersOptions configures NewWorkers. A nil *WorkersOptions and zero
// fields mean the defaults.
type WorkersOptions struct {
	// Max is the most worker goroutines that may exist, and so the most
	// tasks that run at once. 0 means DefaultMaxWorkers.
	Max int
	// IdleTimeout is how long an idle worker waits for a task before it
	// exits. 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Keep is how many idle workers may wait IdleTimeout; while more are
	// idle, the longest idle beyond Keep exit after Linger. 0 means
	// DefaultKeep; a negative Keep keeps none.
	Keep int
	// Linger is how long an idle worker beyond Keep waits for a task
	// before it exits (at most IdleTimeout). 0 means DefaultLinger.
	Linger time.Duration
}

func (o *WorkersOptions) max() int {
	if o == nil || o.Max <= 0 {
		return DefaultMaxWorkers
	}
	return o.Max
}

func (o *WorkersOptions) idleTimeout() time.Duration {
	if o == nil || o.IdleTimeout <= 0 {
		return DefaultIdleTimeout
	}
	return o.IdleTimeout
}

func (o *WorkersOptions) keep() int {
	switch {
	case o == nil || o.Keep == 0:
		return DefaultKeep
	case o.Keep < 0:
		return 0
	}
	return o.Keep
}

func (o *WorkersOptions) linger() time.Duration {
	d := DefaultLinger
	if o != nil && o.Linger > 0 {
		d = o.Linger
	}
	return min(d, o.idleTimeout())
}

// Workers is a bounded pool of worker goroutines, created on demand and
// reused. Create it with NewWorkers; it is safe for concurrent use.
type Workers struct {
	noCopy noCopy

	max         int
	idleTimeout time.Duration
	keep        int
	linger      time.Duration

	mu       sync.Mutex
	idle     []*worker // stack; idle[len-1] was used last
	spare    []*worker // of exited workers, for new ones (at most maxSpare)
	count    int       // live worker goroutines, busy or idle
	cleaning bool      // the cleaner goroutine is running
	stopped  bool

	stop    chan struct{}  // closed by Stop; ends the cleaner
	wake    chan struct{}  // (buffered) more than keep workers went idle
	wg      sync.WaitGroup // workers and the cleaner
	expired []*worker      // the cleaner's scratch space
}

type worker struct {
	tasks    chan Task // a nil Task tells the worker to exit
	lastUsed time.Time // set by the worker just before it goes idle
}

// NewWorkers returns a pool configured by opts (nil means the defaults).
// No goroutine starts until the first Submit, and none is left once every
// worker has been idle for a while; Stop ends them at once.
func NewWorkers(opts *WorkersOptions) *Workers {
	return &Workers{
		max:         opts.max(),
		idleTimeout: opts.idleTimeout(),
		keep:        opts.keep(),
		linger:      opts.linger(),
		stop:        make(chan struct{}),
		wake:        make(chan struct{}, 1),
	}
}

// Submit runs t on a worker and returns true, or returns false without
// running t when Max workers are all busy or Stop has been called; the
// caller then decides (run it inline, answer "overloaded"). t must not be
// nil. Submit never
// waits for a worker. In steady state (a worker idle) it does not allocate;
// the task itself should be a pointer so that boxing it in the interface
// does not allocate either. t.Run must not panic: a panic ends the process,
// as in any goroutine (dispatch recovers handler panics itself).
func (w *Workers) Submit(t Task) bool {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return false
	}
	if n := len(w.idle) - 1; n >= 0 {
		wk := w.idle[n]
		w.idle[n] = nil
		w.idle = w.idle[:n]
		w.mu.Unlock()
		wk.tasks <- t // buffered: never blocks, the worker is ours
		return true
	}
	if w.count >= w.max {
		w.mu.Unlock()
		return false
	}
	w.count++
	w.wg.Add(1)
	startCleaner := !w.cleaning
	if startCleaner {
		w.cleaning = true
		w.wg.Add(1)
	}
	var wk *worker
	if n := len(w.spare) - 1; n >= 0 {
		wk = w.spare[n]
		w.spare[n] = nil
		w.spare = w.spare[:n]
	}
	w.mu.Unlock()

	if startCleaner {
		go w.clean()
	}
	if wk == nil {
		wk = &worker{tasks: make(chan Task, 1)}
	}
	go w.work(wk, t) // the runtime reuses an exited goroutine: no allocation then
	return true
}

// work is a worker goroutine's body: run t, go idle, take the next task.
func (w *Workers) work(wk *worker, t Task) {
	defer w.exit(wk)
	for t != nil {
		t.Run()
		idle := w.release(wk)
		if h, ok := t.(Handoff); ok {
			h.Done()
		}
		if !idle {
			return
		}
		t = <-wk.tasks
	}
}

// release puts wk back on the idle stack; false means the pool is stopping
// and the worker must exit.
func (w *Workers) release(wk *worker) bool {
	wk.lastUsed = time.Now()
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return false
	}
	w.idle = append(w.idle, wk)
	over := len(w.idle) == w.keep+1
	w.mu.Unlock()
	if over { // the cleaner may be sleeping for IdleTimeout: Linger applies now
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return true
}

// exit ends a worker's goroutine, keeping wk (its channel is empty) for the
// next worker to start.
func (w *Workers) exit(wk *worker) {
	w.mu.Lock()
	w.count--
	if len(w.spare) < maxSpare {
		w.spare = append(w.spare, wk)
	}
	w.mu.Unlock()
	w.wg.Done()
}

// clean retires idle workers (see expire) until no worker is left.
func (w *Workers) clean() {
	defer w.wg.Done()
	t := time.NewTimer(w.idleTimeout)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-w.wake:
		case <-t.C:
		}
		next, ok := w.expire(time.Now())
		if !ok {
			return
		}
		t.Reset(next)
	}
}

// expire tells the workers due at now to exit: those idle for IdleTimeout,
// and, while more than keep are idle, those idle for Linger. They are at the
// bottom of the stack. It returns how long until the next one is due. When
// no worker is left it ends the cleaner: it returns false, and the next new
// worker starts another.
func (w *Workers) expire(now time.Time) (time.Duration, bool) {
	w.mu.Lock()
	if w.count == 0 {
		w.cleaning = false
		w.mu.Unlock()
		return 0, false
	}
	n := 0
	for ; n < len(w.idle); n++ {
		idle := now.Sub(w.idle[n].lastUsed)
		if idle < w.idleTimeout && (len(w.idle)-n <= w.keep || idle < w.linger) {
			break
		}
	}
	next := w.idleTimeout
	if n < len(w.idle) {
		limit := w.idleTimeout
		if len(w.idle)-n > w.keep {
			limit = w.linger
		}
		next = limit - now.Sub(w.idle[n].lastUsed)
	}
	next = max(next, min(minCleanWait, w.linger))
	w.expired = append(w.expired[:0], w.idle[:n]...)
	m := copy(w.idle, w.idle[n:])
	clear(w.idle[m:])
	w.idle = w.idle[:m]
	w.mu.Unlock()

	for i, wk := range w.expired {
		wk.tasks <- nil
		w.expired[i] = nil
	}
	return next, true
}

// Stop refuses further tasks, ends idle workers, waits for running tasks to
// return and for every goroutine of the pool to exit. It is safe to call
// more than once and from several goroutines.
func (w *Workers) Stop() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		w.wg.Wait()
		return
	}
	w.stopped = true
	idle := w.idle
	w.idle = nil
	w.mu.Unlock()

	close(w.stop)
	for _, wk := range idle {
		wk.tasks <- nil
	}
	w.wg.Wait()
}
