package netserver

import (
	"runtime"
	"sync"
	"time"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/engineconn"
)

// maxKeptTask caps the buffers a pooled task keeps.
const maxKeptTask = 64 << 10

// task is one message run off the reader goroutine: a pooled pointer, so
// that submitting it allocates nothing.
type task struct {
	c   *core
	r   engineconn.Routed // the message, parsed
	in  []byte            // a copy of the message, which r refers to
	out []byte            // its framed response

	mark, start int // of the response's frame in out (an async task: forward.go)
}

var tasks = sync.Pool{New: func() any { return new(task) }}

func getTask(c *core, r engineconn.Routed) *task {
	t := tasks.Get().(*task)
	t.c, t.r = c, r
	t.in = r.Keep(t.in)
	return t
}

func putTask(t *task) {
	t.c, t.r = nil, nil
	if cap(t.in) > maxKeptTask {
		t.in = nil
	}
	if cap(t.out) > maxKeptTask {
		t.out = nil
	}
	tasks.Put(t)
}

// Run processes the message and writes its response (pool.Task).
func (t *task) Run() {
	c := t.c
	b, mark := c.t.begin(t.out[:0])
	start := len(b)
	b = c.dc.Run(b, t.r)
	if len(b) == start {
		b = b[:mark]
	} else {
		b = c.t.end(b, mark)
	}
	t.out = b
	c.done(b, len(t.in))
	putTask(t)
}

// done takes a finished task's response and flushes it, and gives back the
// in-flight bytes of its message (in); t must not touch c afterwards (the
// connection may end at once).
func (c *core) done(resp []byte, in int) {
	c.mu.Lock()
	c.inputs.Add(-int64(in))
	c.addPending(-int64(in))
	c.appendOutLocked(resp)
	if c.inflight.Load() > 1 && !c.out.Flushing() {
		// Other tasks run: let those that are ready append theirs first,
		// so that one write carries them all (still counted in flight,
		// so the connection stays).
		c.mu.Unlock()
		runtime.Gosched()
		c.mu.Lock()
	}
	if c.inflight.Add(-1) == 0 {
		c.lastDone = time.Since(clockStart)
	}
	c.flushLocked()
	c.wake()
	c.mu.Unlock()
}

// startTask runs the routed message r off the reader goroutine, parsed
// already; its bytes are copied into the task, since the reader's buffer
// moves on. When the workers are all busy a call is answered at once with
// "Server overloaded" (appended to dst). The copy counts as pending bytes
// until the task is done, so that MaxPending bounds the input held by
// tasks too.
func (c *core) startTask(dst []byte, r engineconn.Routed) []byte {
	route := r.Route() // read first: once queued or submitted, r may be gone
	t := getTask(c, r)
	n := int64(len(t.in))
	c.inflight.Add(1)
	c.inputs.Add(n)
	c.addPending(n)
	if route == engineconn.RouteOrdered {
		c.enqueue(t)
		return dst
	}
	if route == engineconn.RouteAsync && c.startAsync(t) { // forward.go
		return dst
	}
	if c.dc.Go(t) {
		return dst
	}
	dst = c.appendOverloaded(dst, r) // before putTask: r's bytes are t's
	c.inflight.Add(-1)               // only this goroutine waits on inflight and pending
	c.inputs.Add(-n)
	c.addPending(-n)
	t.r = nil
	putTask(t)
	return dst
}

// orderedRunner drains the connection's FIFO of ordered tasks, one at a
// time; at most one runs per connection.
type orderedRunner struct{ c *core }

// enqueue appends t to the FIFO and starts the runner if it is not running.
func (c *core) enqueue(t *task) {
	c.mu.Lock()
	c.queue = append(c.queue, t)
	start := !c.qrunning
	c.qrunning = true
	c.mu.Unlock()
	if start && !c.dc.Go(&c.ordered) {
		// Workers saturated: ordered work must not be refused (a
		// notification cannot be answered), so it gets its own goroutine,
		// which finish waits for through inflight.
		go c.ordered.Run()
	}
}

// Run runs queued tasks until the queue is empty (pool.Task).
func (o *orderedRunner) Run() {
	c := o.c
	for {
		c.mu.Lock()
		if int(c.qhead) == len(c.queue) {
			clear(c.queue)
			c.queue, c.qhead, c.qrunning = c.queue[:0], 0, false
			c.mu.Unlock()
			return
		}
		t := c.queue[c.qhead]
		c.queue[c.qhead] = nil
		c.qhead++
		c.mu.Unlock()
		t.Run()
	}
}

// appendOverloaded answers a message that found no free worker: every call
// in it gets -32001 "Server overloaded" with its id.
func (c *core) appendOverloaded(dst []byte, r engineconn.Routed) []byte {
	c.lim.log.Warn("netserver: all workers busy; answering Server overloaded", "remote", c.remote())
	b, mark := c.t.begin(dst)
	start := len(b)
	if b = c.dc.RejectRouted(b, r, encode.CodeOverloaded); len(b) == start {
		return b[:mark]
	}
	return c.t.end(b, mark)
}
