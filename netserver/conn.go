package netserver

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/pool"
)

// NOTE: how a connection is served.
//
// One reader goroutine per connection runs readLoop: it takes frames from a
// frame.Reader and hands each to the engine with TryProcess. Cheap messages
// are answered inline, appending their framed response to the reader-local
// buffer c.local. Messages that may block are copied into a pooled task and
// run on the server's workers (RouteWorker) or queued on the connection's
// FIFO, drained by one worker at a time (RouteOrdered, notifications that
// must keep their order); tasks append their responses to the shared buffer
// c.out under c.mu (conn_task.go).
//
// Output (conn_write.go): whenever the reader is about to block (no whole
// frame buffered), or its local buffer is large, it moves c.local into c.out
// and flushes. Whoever finds output in c.out and nobody writing becomes the
// flusher: it swaps c.out with a spare buffer and writes without holding the
// lock, so others keep appending meanwhile, then loops until c.out is empty.
// One writer at a time; responses written in one call coalesce.
//
// Backpressure: before each frame the reader checks, with atomic loads only,
// that fewer than MaxInFlight tasks run and fewer than MaxPending bytes wait
// to be written; otherwise it flushes and waits on c.cond, which tasks and
// flushers signal. So a peer that never reads its responses stops being read
// (and is dropped after WriteTimeout), and memory stays bounded.
//
// Ending (readLoop returns): EOF, a read or write error, a timeout, broken
// framing or Shutdown. finish then waits for the tasks in flight, which write
// their responses (best effort), flushes, closes, and returns the pooled
// objects. A write error cancels c.ctx, so handlers stop early.
//
// Timeouts (TCP only, conn_io.go): before a read that may block the reader
// sets a deadline of ReadTimeout when part of a frame is buffered, else of
// IdleTimeout; a deadline that expires while work is in flight is renewed.
// An idle spell begins with a shorter deadline, idleRelease: when it expires
// the connection gives its read and output buffers back (releaseIdle), so
// that an idle connection costs little more than its goroutine.

// flushAt is the size of c.local at which the reader hands its responses over
// to be written even though more input is buffered.
const flushAt = 64 << 10

// Reasons readLoop ends without an error of the transport.
var (
	errStopped     = errors.New("netserver: connection stopped by Shutdown")
	errReadTimeout = errors.New("netserver: frame not completed within ReadTimeout")
	errIdle        = errors.New("netserver: connection idle for IdleTimeout")
)

// conn is one connection: TCP (nc set) or stdio.
type conn struct {
	srv    *Server
	e      *dispatch.Engine
	ctx    context.Context // the handlers' context: carries the peer
	rctx   context.Context // ctx marked as the reader's (inline handlers)
	cancel context.CancelFunc
	peer   *dispatch.Peer

	nc net.Conn  // nil for stdio
	r  io.Reader // the stream (for stdio: what Shutdown interrupts)
	w  io.Writer
	rd connReader // r wrapped with the frame-start read deadline (TCP)

	// used by the reader goroutine only
	fr    *frame.Reader
	kind  frame.Kind // framing of responses, fixed after the first frame
	local *pool.Buffer

	mu       sync.Mutex
	cond     sync.Cond
	out      *pool.Buffer // responses waiting to be written
	spare    *pool.Buffer // nil while being written
	flushing bool
	waiting  bool  // the reader waits on cond
	senders  int   // handlers waiting on cond to send to the peer
	werr     error // sticky: the connection can no longer be written
	ended    bool  // finish is done with the transport; stop and abort do nothing
	lastDone time.Time
	queue    []*task // ordered tasks; queue[qhead:] wait
	qhead    int
	qrunning bool
	ordered  orderedRunner

	stopping atomic.Bool  // Shutdown asked to stop reading; set under mu
	inflight atomic.Int32 // tasks submitted or queued, not yet done
	pending  atomic.Int64 // bytes in out or being written, and of tasks' messages; see addPending
}

func newConn(s *Server, nc net.Conn, r io.Reader, w io.Writer) *conn {
	c := &conn{srv: s, e: s.e, nc: nc, r: r, w: w}
	c.cond.L = &c.mu
	c.ordered.c = c
	c.rd.c = c
	return c
}

// init takes the connection's pooled resources.
func (c *conn) init() {
	ctx, cancel := context.WithCancel(c.e.Context())
	c.cancel = cancel
	c.initPeer(ctx)
	var src io.Reader = c.r
	if c.nc != nil {
		src = &c.rd
	}
	c.fr = getReader(src, c.srv.framing, c.srv.maxMessage)
	c.kind = c.srv.framing
	c.local, c.out, c.spare = getOutBuffer(), getOutBuffer(), getOutBuffer()
}

// release returns the pooled resources; nothing may use c afterwards.
func (c *conn) release() {
	if c.cancel != nil {
		c.cancel()
	}
	if c.fr != nil {
		putReader(c.fr)
		c.fr = nil
	}
	for _, b := range [...]**pool.Buffer{&c.local, &c.out, &c.spare} {
		putOutBuffer(*b)
		*b = nil
	}
}

// serveTracked serves a connection that was initialised and registered by
// Server.track, and returns why reading ended.
func (c *conn) serveTracked() error {
	err := c.readLoop()
	c.finish(err)
	c.srv.forget(c)
	return err
}

// readLoop reads and handles frames until the connection must end.
func (c *conn) readLoop() error {
	for {
		ready := c.fr.Ready()
		if !ready || !c.room() {
			if err := c.pause(!ready); err != nil {
				return err
			}
		}
		var msg []byte
		var err error
		if !ready && c.rd.released && c.fr.Buffered() == 0 {
			err = c.rd.await() // idle: wait for input without a buffer
		}
		if err == nil {
			msg, err = c.fr.Next()
		}
		if c.kind == frame.Auto {
			c.kind = c.fr.Kind()
		}
		if err != nil {
			if err = c.readError(err); err != nil {
				return err
			}
			continue
		}
		c.handle(msg)
	}
}

// room reports whether the reader may take the next buffered frame at once.
func (c *conn) room() bool {
	n := len(c.local.B)
	return n < flushAt && c.inflight.Load() < c.srv.maxInFlight &&
		c.pending.Load()+int64(n) < c.srv.maxPending && !c.stopping.Load()
}

// pause hands the local output over (flushing it unless someone else is
// writing), waits until the bounds allow more work and, when the next read
// may block, arms the read deadline: all in one hold of c.mu.
func (c *conn) pause(willRead bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.local.B) > 0 {
		c.moveLocalLocked()
		c.flushLocked()
	}
	if err := c.waitRoomLocked(); err != nil {
		return err
	}
	if willRead {
		c.armReadLocked()
	}
	return nil
}

// handle processes one frame: inline into c.local, or as a task.
func (c *conn) handle(msg []byte) {
	b, mark := frame.BeginFrame(c.local.B, c.kind)
	start := len(b)
	b, route := c.e.TryProcess(c.rctx, b, msg)
	switch {
	case route != dispatch.RouteInline:
		b = c.startTask(b[:mark], msg, route)
	case len(b) == start: // no response due
		b = b[:mark]
	default:
		b = frame.EndFrame(b, c.kind, mark)
	}
	c.local.B = b
}

// readError decides what a Next error means: nil to go on reading, else the
// reason to stop.
func (c *conn) readError(err error) error {
	if tl, ok := err.(*frame.TooLargeError); ok {
		c.local.B = c.appendTooLarge(c.local.B, tl)
		return nil
	}
	switch {
	case c.stopping.Load():
		return errStopped
	case errors.Is(err, frame.ErrBroken):
		c.local.B = c.appendBroken(c.local.B, err)
		return err
	case errors.Is(err, os.ErrDeadlineExceeded):
		return c.timedOut()
	}
	return err
}

// timedOut handles an expired read deadline: the time to give an idle
// connection's buffers back, the end of a stalled frame or of an idle
// connection; with work in flight the deadline is renewed.
func (c *conn) timedOut() error {
	if c.rd.release {
		c.releaseIdle()
		return nil
	}
	if c.fr.Buffered() > 0 || c.rd.inFrame {
		return errReadTimeout
	}
	c.mu.Lock()
	busy := c.inflight.Load() > 0 || c.pending.Load() > 0 ||
		time.Since(c.lastDone) < c.srv.idleTimeout
	c.mu.Unlock()
	if busy {
		return nil
	}
	return errIdle
}

// finish ends the connection: it waits for the tasks in flight and their
// writes, flushes what is left, closes the transport and releases c.
func (c *conn) finish(cause error) {
	c.logEnd(cause)
	c.peer.Close() // no response to a call to the client can come any more
	if !orderly(cause) {
		c.cancel() // the transport failed: the handlers' work is lost anyway
	}
	c.handoff()
	c.mu.Lock()
	for c.inflight.Load() > 0 || c.flushing {
		c.waiting = true
		c.cond.Wait()
		c.waiting = false
	}
	c.flushLocked()
	c.ended = true
	c.cond.Broadcast() // senders to the peer give up
	c.mu.Unlock()
	c.cancel()
	c.closeTransport(cause)
	c.release()
}

// orderly reports whether reading ended in a way that still lets responses
// be written: the calls in flight then run to completion.
func orderly(cause error) bool {
	switch cause {
	case io.EOF, io.ErrUnexpectedEOF, errStopped, errIdle, errReadTimeout:
		return true
	}
	return errors.Is(cause, frame.ErrBroken)
}

// logEnd logs why a connection ended, at a level fitting the reason.
func (c *conn) logEnd(cause error) {
	switch {
	case cause == io.EOF, cause == errStopped, c.nc == nil:
		return
	case cause == errIdle:
		c.srv.log.Debug("netserver: closing idle connection", "remote", c.remote())
	case cause == errReadTimeout, errors.Is(cause, frame.ErrBroken), cause == io.ErrUnexpectedEOF:
		c.srv.log.Info("netserver: closing connection", "remote", c.remote(), "reason", cause.Error())
	default:
		c.srv.log.Debug("netserver: connection ended", "remote", c.remote(), "err", cause)
	}
}

func (c *conn) remote() string {
	if c.nc == nil {
		return "stdio"
	}
	if a := c.nc.RemoteAddr(); a != nil {
		return a.String()
	}
	return ""
}
