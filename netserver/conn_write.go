package netserver

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strconv"
	"sync"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/pool"
)

// maxKeptOutput caps the capacity of an output buffer kept in outBuffers or
// kept by a connection after a write.
const maxKeptOutput = 256 << 10

// outBuffers pools the connections' output buffers (*pool.Buffer). It is a
// plain sync.Pool: bytebufferpool calibrates by the length at Put, and these
// buffers are always empty then.
var outBuffers = sync.Pool{New: func() any { return new(pool.Buffer) }}

func getOutBuffer() *pool.Buffer { return outBuffers.Get().(*pool.Buffer) }

func putOutBuffer(b *pool.Buffer) {
	if b == nil || cap(b.B) > maxKeptOutput {
		return
	}
	b.B = b.B[:0]
	outBuffers.Put(b)
}

// handoff moves the reader's local output to c.out and flushes it, unless
// another goroutine is writing (which then writes it too).
func (c *conn) handoff() {
	if len(c.local.B) == 0 {
		return
	}
	c.mu.Lock()
	c.moveLocalLocked()
	c.flushLocked()
	c.mu.Unlock()
}

// moveLocalLocked moves c.local into c.out, by swapping when c.out is empty.
func (c *conn) moveLocalLocked() {
	n := len(c.local.B)
	switch {
	case c.werr != nil:
		c.local.B = c.local.B[:0]
		return
	case len(c.out.B) == 0:
		c.local, c.out = c.out, c.local
	default:
		c.out.B = append(c.out.B, c.local.B...)
		c.local.B = c.local.B[:0]
	}
	c.addPending(int64(n))
}

// appendOutLocked appends a task's framed response to c.out.
func (c *conn) appendOutLocked(b []byte) {
	if len(b) == 0 || c.werr != nil {
		return
	}
	c.out.B = append(c.out.B, b...)
	c.addPending(int64(len(b)))
}

// addPending changes c.pending. A goroutine other than the reader that
// lowers it holds c.mu and wakes the reader; the reader needs no lock.
func (c *conn) addPending(n int64) {
	p := c.pending.Add(n)
	if h := c.srv.testHookPending; h != nil && n > 0 {
		h(c, p)
	}
}

// flushLocked writes c.out unless another goroutine is writing, looping
// until c.out is empty. c.mu is held on entry and exit and released during
// each write, while the next responses collect in the spare buffer.
func (c *conn) flushLocked() {
	for !c.flushing && len(c.out.B) > 0 {
		if c.werr != nil {
			c.discardLocked()
			return
		}
		buf := c.out
		c.out, c.spare = c.spare, nil
		c.flushing = true
		c.mu.Unlock()
		err := c.write(buf.B)
		c.mu.Lock()
		c.flushing = false
		c.addPending(-int64(len(buf.B)))
		buf.B = buf.B[:0]
		if cap(buf.B) > maxKeptOutput {
			buf.B = nil // a burst of output does not stay pinned
		}
		c.spare = buf
		if err != nil {
			c.failLocked(err)
		}
		c.wake()
	}
}

// discardLocked drops the output not yet being written.
func (c *conn) discardLocked() {
	if n := len(c.out.B); n > 0 {
		c.out.B = c.out.B[:0]
		c.addPending(-int64(n))
	}
}

// failLocked records a write error: nothing more is written, handlers are
// cancelled and the reader is unblocked so that the connection ends.
func (c *conn) failLocked(err error) {
	if c.werr != nil {
		return
	}
	c.werr = err
	c.discardLocked()
	c.cancel()
	level := slog.LevelDebug
	if errors.Is(err, os.ErrDeadlineExceeded) {
		level = slog.LevelInfo
	}
	c.srv.log.Log(context.Background(), level, "netserver: write failed; dropping connection",
		"remote", c.remote(), "err", err)
	if c.nc != nil {
		c.nc.Close()
	} else {
		c.interruptLocked()
	}
}

// wake tells a waiting reader (and senders to the peer) that the state
// changed. c.mu must be held.
func (c *conn) wake() {
	switch {
	case c.senders > 0:
		c.cond.Broadcast()
	case c.waiting:
		c.cond.Signal()
	}
}

// waitRoomLocked waits until fewer than MaxInFlight tasks run and fewer
// than MaxPending bytes wait to be written. It fails when the connection can
// no longer be written or Shutdown stopped it.
func (c *conn) waitRoomLocked() error {
	for {
		switch {
		case c.werr != nil:
			return c.werr
		case c.stopping.Load():
			return errStopped
		case c.inflight.Load() < c.srv.maxInFlight && c.pending.Load() < c.srv.maxPending:
			return nil
		}
		c.waiting = true
		c.cond.Wait()
		c.waiting = false
	}
}

// appendTooLarge answers an oversized frame: -32600 with id null.
func (c *conn) appendTooLarge(dst []byte, tl *frame.TooLargeError) []byte {
	data := c.srv.tooLargeData
	if tl.Limit != c.srv.maxMessage {
		data = appendTooLargeData(nil, tl.Limit)
	}
	b, mark := frame.BeginFrame(dst, c.kind)
	b = encode.AppendError(b, nil, encode.CodeInvalidRequest, encode.CodeInvalidRequest.String(), data)
	return frame.EndFrame(b, c.kind, mark)
}

func appendTooLargeData(dst []byte, limit int) []byte {
	return encode.AppendString(dst, "message larger than "+strconv.Itoa(limit)+" bytes")
}

// appendBroken answers broken framing: -32700 with id null, naming the
// problem.
func (c *conn) appendBroken(dst []byte, err error) []byte {
	data := encode.AppendString(nil, err.Error())
	b, mark := frame.BeginFrame(dst, c.kind)
	b = encode.AppendError(b, nil, encode.CodeParseError, encode.CodeParseError.String(), data)
	return frame.EndFrame(b, c.kind, mark)
}
