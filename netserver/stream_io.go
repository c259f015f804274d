package netserver

import (
	"io"
	"time"
)

// aLongTimeAgo is a deadline in the past: setting it interrupts a blocked
// read at once.
var aLongTimeAgo = time.Unix(1, 0)

// drainTime bounds how long a connection closed while its peer may still be
// sending is drained first (as net/http does), so that the peer gets the last
// responses rather than a reset.
const drainTime = 500 * time.Millisecond

// writeChunk is the most bytes given to one Write, so that WriteTimeout
// bounds a write that makes no progress rather than a long one that does.
const writeChunk = 256 << 10

// idleRelease is how long a TCP connection waits for input before it gives
// its buffers back (Server.idleRelease; tests shorten it). An idle
// connection then holds no read or write buffer; the next input allocates a
// small one again.
const idleRelease = time.Second

// connReader is what a TCP connection's frame.Reader reads from. When a
// frame's first bytes came in one read and the frame needs more, it tightens
// the deadline from IdleTimeout to ReadTimeout.
//
// A connection that gave its buffers back waits for input with await, which
// reads one byte into the connReader itself, so that no read buffer is
// allocated before input arrives; Read hands that byte out first.
//
// The idle deadlines (idleRelease, IdleTimeout) are coarse: an idle spell
// begins at every read that may block after input, but the deadline set is
// moved only when it is more than a quarter of the spell early, so a busy
// connection sets it about four times a spell rather than for every message
// (setting one modifies a runtime timer, shared by all the connections of a
// P: at 10,000 connections that cost grew with their number). A deadline
// that fires before the spell is over is set again, to the spell's end.
type connReader struct {
	c        *conn
	got      bool // bytes arrived since the deadline was armed
	inFrame  bool // the deadline armed is ReadTimeout
	release  bool // the deadline armed is idleRelease
	released bool // the buffers were given back in this idle spell
	park     bool // move to a new goroutine before waiting (see serveTracked)
	held     bool // b holds a byte read by await
	renew    bool // the spell begins again at the next arm (work was in flight)
	b        [1]byte

	since time.Time     // when the idle spell armed for began
	spell time.Duration // its length
	dl    time.Time     // the idle deadline set; zero: none, or not known
}

func (r *connReader) Read(p []byte) (int, error) {
	if r.held && len(p) > 0 {
		r.held = false
		p[0] = r.b[0]
		return 1, nil
	}
	if r.got && !r.inFrame && r.c.lim.readTimeout > 0 {
		r.inFrame, r.release = true, false
		if err := r.c.setReadDeadline(r.c.lim.readTimeout); err != nil {
			return 0, err
		}
	}
	n, err := r.c.nc.Read(p)
	if n > 0 {
		r.got = true
	}
	return n, err
}

// arm sets the deadline of the read about to block (TCP only):
// ReadTimeout when part of a frame is buffered; else, when idle, first
// idleRelease (to give the buffers back) and then the rest of IdleTimeout.
// It holds c.mu to order it with stop, which must win.
func (c *conn) arm() error {
	if c.nc == nil || !c.srv.deadlines() {
		return nil
	}
	rd := &c.rd
	input := rd.got
	if input { // input since the last deadline: a new idle spell
		rd.released = false
	}
	wasRelease, wasFrame := rd.release, rd.inFrame
	rd.got, rd.inFrame, rd.release = false, c.buffered() > 0, false
	d, rel := c.lim.idleTimeout, c.srv.idleRelease
	switch {
	case rd.inFrame:
		d = c.lim.readTimeout
	case rd.released:
		if d > 0 {
			d -= rel // the spell began rel ago
		}
	case rel > 0 && (d <= 0 || rel < d):
		rd.release, d = true, rel
	}
	if rd.inFrame || d <= 0 {
		return c.setReadDeadline(d)
	}
	now := time.Now()
	if input || rd.renew || wasFrame || rd.release != wasRelease || rd.spell != d {
		rd.since, rd.spell, rd.renew = now, d, false
	}
	end := rd.since.Add(d)
	if !rd.dl.IsZero() && !rd.dl.After(end) && rd.dl.After(end.Add(-d/4)) {
		return nil // early by less than a quarter: timedOut sees to it
	}
	return c.setReadDeadlineAt(end)
}

// earlyDeadline reports whether an idle deadline that just fired came before
// the end of the spell; the next arm then sets it again.
func (r *connReader) earlyDeadline() bool {
	r.dl = time.Time{}
	return !r.inFrame && r.spell > 0 && time.Now().Before(r.since.Add(r.spell))
}

// await blocks, under the deadline armed, until input arrives, reading one
// byte that Read hands out next.
func (r *connReader) await() error {
	n, err := r.c.nc.Read(r.b[:])
	if n > 0 {
		r.held, r.got = true, true
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// releaseIdle gives the buffers of a connection idle for idleRelease back:
// the frame reader with its buffer (unless a partial frame is buffered) and
// the output buffers, unless output is being written.
func (c *conn) releaseIdle() {
	c.rd.released, c.rd.park = true, true
	if c.fr.Release(); c.fr.Idle() {
		putReader(c.fr)
		c.fr = nil
	}
	if len(c.local.B) == 0 {
		c.local.B = nil
	}
	c.mu.Lock()
	if !c.flushing && len(c.out.B) == 0 {
		c.out.B = nil
		c.spare.B = nil
	}
	if h := c.srv.testHookRelease; h != nil {
		h(c) // under c.mu
	}
	c.mu.Unlock()
}

// setReadDeadline sets the read deadline d from now unless Shutdown stopped
// reading.
func (c *conn) setReadDeadline(d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rd.dl = time.Time{} // not an idle deadline
	if c.stopping.Load() {
		return errStopped
	}
	c.nc.SetReadDeadline(deadline(d))
	return nil
}

// setReadDeadlineAt sets the idle read deadline t unless Shutdown stopped
// reading.
func (c *conn) setReadDeadlineAt(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping.Load() {
		return errStopped
	}
	c.nc.SetReadDeadline(t)
	c.rd.dl = t
	return nil
}

// deadline is d from now, or none for d <= 0.
func deadline(d time.Duration) time.Time {
	if d <= 0 {
		return time.Time{}
	}
	return time.Now().Add(d)
}

// deadlines reports whether TCP reads take deadlines at all.
func (s *Server) deadlines() bool {
	return s.lim.readTimeout > 0 || s.lim.idleTimeout > 0 || s.idleRelease > 0
}

// write writes b to the transport (transport.write).
func (c *conn) write(b []byte) error {
	if c.nc == nil {
		_, err := c.w.Write(b)
		return err
	}
	return writeChunks(c.nc, b, c.lim.writeTimeout, &c.wdl)
}

// deadliner is a connection whose writes take deadlines.
type deadliner interface {
	Write(b []byte) (int, error)
	SetWriteDeadline(t time.Time) error
}

// writeChunks writes b to w in writeChunk pieces, each of which must be
// written within wt (zero: no bound), in fact within 7/8 of wt to wt: *dl
// is the write deadline set, moved only when it would leave a piece less
// than 7/8 of wt, so that a connection writing often does not modify its
// timer for every write.
func writeChunks(w deadliner, b []byte, wt time.Duration, dl *time.Time) error {
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		if wt > 0 {
			now := time.Now()
			if dl.Before(now.Add(wt - wt/8)) {
				*dl = now.Add(wt)
				if err := w.SetWriteDeadline(*dl); err != nil {
					return err
				}
			}
		}
		if _, err := w.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// readDeadliner is a stdio reader that can take a deadline (a pollable
// *os.File, a net.Conn).
type readDeadliner interface {
	SetReadDeadline(t time.Time) error
}

// interrupt unblocks a read in progress, leaving writes possible
// (transport.interrupt): a past read deadline for TCP and for a stdio
// reader that takes one, else closing the stdio reader. The stdio reader's
// SetReadDeadline and Close must not block (those of *os.File,
// io.PipeReader and net.Conn do not).
func (c *conn) interrupt() {
	if c.nc != nil {
		c.nc.SetReadDeadline(aLongTimeAgo)
		return
	}
	if d, ok := c.r.(readDeadliner); ok && d.SetReadDeadline(aLongTimeAgo) == nil {
		return
	}
	if cl, ok := c.r.(io.Closer); ok {
		cl.Close()
	}
}

// drop closes a TCP connection at once; a stdio one stops reading
// (transport.drop).
func (c *conn) drop() {
	if c.nc != nil {
		closeNow(c.nc)
		return
	}
	c.interrupt()
}
