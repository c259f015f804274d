package netserver

// NOTE: a forwarded call answered without a worker (dispatch's
// AsyncForwarder; package gateway). The reader keeps the call in a task, as
// for a worker, and starts it (Conn.Start) instead of submitting it; the
// task counts in flight as any other, so the bounds, drain and finish treat
// it alike. Its answer comes on the goroutine that ended the forward (the
// upstream's reader), which queues it as a worker does (finishAsync) and
// writes it at once when nobody is writing, but never waits: tryWrite
// writes what the socket takes now, and the rest, if any, goes to a
// goroutine of its own (writeRest) that writes it as the flusher does. So
// an upstream's reader is never held up by a client that reads slowly.
// Where the socket cannot be written without waiting (TLS, stdio, a
// platform without it: internal/rawio) the write goes to that goroutine.

import (
	"time"

	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/internal/rawio"
)

// startAsync starts t, a call routed to RouteAsync, and reports whether it
// did; the task ends in Finish.
func (c *core) startAsync(t *task) bool {
	b, mark := c.t.begin(t.out[:0])
	t.mark, t.start = mark, len(b)
	return c.dc.Start(b, t.r, t)
}

// Finish takes the answer of an async task (engineconn.Finisher).
func (t *task) Finish(b []byte, later engineconn.Deferrer) {
	c := t.c
	if len(b) == t.start {
		b = b[:t.mark]
	} else {
		b = c.t.end(b, t.mark)
	}
	t.out = b
	t.r = nil // released by the engine
	c.finishAsync(b, len(t.in), later)
	putTask(t)
}

// finishAsync is done for an async task: its answer is queued and
// written without waiting, or left to later (nil: now), which flushes c
// once its goroutine is done with the answers it has.
func (c *core) finishAsync(resp []byte, in int, later engineconn.Deferrer) {
	c.mu.Lock()
	c.inputs.Add(-int64(in))
	c.addPending(-int64(in))
	c.appendOutLocked(resp)
	if c.inflight.Add(-1) == 0 {
		c.lastDone = monoNow()
	}
	if later != nil && !c.out.Flushing() && len(c.out.Out) > 0 {
		later.Defer(c)
	} else {
		c.flushNoWait()
	}
	c.wake()
	c.mu.Unlock()
}

// Flush writes what finishAsync left to later, without waiting. Once the
// connection has ended (finish wrote what was queued) it finds nothing, and
// once its buffers went back (release) it touches nothing: the last answer
// lets the connection end before the upstream's reader gets to its Flush.
func (c *core) Flush() {
	c.mu.Lock()
	if !c.released {
		c.flushNoWait()
	}
	c.mu.Unlock()
}

// flushNoWait writes c.out unless someone is writing, as flushLocked
// does, but without waiting for the socket: what it does not take now is
// written by writeRest. c.mu is held.
func (c *core) flushNoWait() {
	for !c.out.Flushing() && !c.held && len(c.out.Out) > 0 {
		if c.werr != nil {
			c.discardLocked()
			return
		}
		buf, _ := c.out.Claim()
		c.mu.Unlock()
		n, err := c.tryWrite(buf)
		if n < len(buf) && err == nil {
			go c.writeRest(buf, n)
			c.mu.Lock()
			return
		}
		c.mu.Lock()
		c.out.Release(buf)
		if !c.Written(len(buf), err) {
			return
		}
	}
}

// writeRest writes buf[n:], the rest of what flushNoWait claimed, waiting
// as the flusher does, and then what was queued meanwhile.
func (c *core) writeRest(buf []byte, n int) {
	err := c.t.write(buf[n:])
	c.mu.Lock()
	c.out.Release(buf)
	if c.Written(len(buf), err) {
		c.flushLocked()
	}
	c.mu.Unlock()
}

// tryWrite writes what the connection's socket takes of b now and
// returns how much; (0, nil) when the connection cannot be written
// without waiting. c.mu is not held; the caller claimed the output.
func (c *core) tryWrite(b []byte) (int, error) {
	if !c.rawTried {
		c.rawTried = true
		c.raw = rawio.OfWriter(c.nc)
	}
	if c.raw == nil {
		return 0, nil
	}
	return c.raw.TryWrite(b)
}

// monoNow is the time since clockStart (core.lastDone's clock).
func monoNow() time.Duration { return time.Since(clockStart) }
