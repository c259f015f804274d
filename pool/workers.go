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
// refuses. A cleaner goroutine, started with the first worker, wakes every
// IdleTimeout and sends nil to workers idle longer than that, which makes
// them exit; once no worker is left the cleaner exits too, so an unused
// pool holds no goroutine. Stop sends nil to every idle worker, lets busy
// ones exit when their task returns, and waits for all of them and the
// cleaner.

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

// Defaults for WorkersOptions.
const (
	// DefaultMaxWorkers lets about 16k handlers block at once (sleeping,
	// waiting on a backend) before Submit reports saturation. A worker costs
	// a goroutine (a few KiB of stack) only while it exists.
	DefaultMaxWorkers = 1 << 14
	// DefaultIdleTimeout is how long a worker waits for work before exiting.
	DefaultIdleTimeout = 10 * time.Second
)

// WorkersOptions configures NewWorkers. A nil *WorkersOptions and zero
// fields mean the defaults.
type WorkersOptions struct {
	// Max is the most worker goroutines that may exist, and so the most
	// tasks that run at once. 0 means DefaultMaxWorkers.
	Max int
	// IdleTimeout is how long an idle worker waits for a task before it
	// exits; it exits between IdleTimeout and twice that after its last
	// task. 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
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

// Workers is a bounded pool of worker goroutines, created on demand and
// reused. Create it with NewWorkers; it is safe for concurrent use.
type Workers struct {
	noCopy noCopy

	max         int
	idleTimeout time.Duration

	mu       sync.Mutex
	idle     []*worker // stack; idle[len-1] was used last
	count    int       // live worker goroutines, busy or idle
	cleaning bool      // the cleaner goroutine is running
	stopped  bool

	stop    chan struct{}  // closed by Stop; ends the cleaner
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
		stop:        make(chan struct{}),
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
	w.mu.Unlock()

	if startCleaner {
		go w.clean()
	}
	go w.work(&worker{tasks: make(chan Task, 1)}, t)
	return true
}

// work is a worker goroutine's body: run t, go idle, take the next task.
func (w *Workers) work(wk *worker, t Task) {
	defer w.exit()
	for t != nil {
		t.Run()
		if !w.release(wk) {
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
	w.mu.Unlock()
	return true
}

func (w *Workers) exit() {
	w.mu.Lock()
	w.count--
	w.mu.Unlock()
	w.wg.Done()
}

// clean ends workers that have been idle for longer than idleTimeout.
func (w *Workers) clean() {
	defer w.wg.Done()
	tick := time.NewTicker(w.idleTimeout)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case now := <-tick.C:
			if !w.expire(now.Add(-w.idleTimeout)) {
				return
			}
		}
	}
}

// expire tells the workers idle since before deadline to exit. They are at
// the bottom of the stack. When no worker is left it ends the cleaner: it
// returns false, and the next new worker starts another.
func (w *Workers) expire(deadline time.Time) bool {
	w.mu.Lock()
	if w.count == 0 {
		w.cleaning = false
		w.mu.Unlock()
		return false
	}
	n := 0
	for n < len(w.idle) && w.idle[n].lastUsed.Before(deadline) {
		n++
	}
	w.expired = append(w.expired[:0], w.idle[:n]...)
	m := copy(w.idle, w.idle[n:])
	clear(w.idle[m:])
	w.idle = w.idle[:m]
	w.mu.Unlock()

	for i, wk := range w.expired {
		wk.tasks <- nil
		w.expired[i] = nil
	}
	return true
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
