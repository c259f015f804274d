package netserver

import (
	"io"
	"sync/atomic"
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
// frame's first bytes came in one read and the frame needs more, it sets the
// deadline of ReadTimeout.
//
// A connection that gave its buffers back waits for input with await, which
// reads one byte into the connReader itself, so that no read buffer is
// allocated before input arrives; Read hands that byte out first.
//
// The idle spells (idleRelease, then the rest of IdleTimeout) take no read
// deadline: the Server's sweeper kicks the reader when one is over
// (sweep.go). ReadTimeout, rarer, is a deadline of its own.
//
// Its one-byte fields come together, so that it takes 40 bytes of every
// connection (idle ones are counted in bytes).
type connReader struct {
	c        *conn
	got      bool // bytes arrived since the deadline was armed
	inFrame  bool // the deadline armed is ReadTimeout
	release  bool // the spell armed is idleRelease
	released bool // the buffers were given back in this idle spell
	park     bool // move to a new goroutine before waiting (see serveTracked)
	held     bool // b holds a byte read by await
	renew    bool // the spell begins again at the next arm (work was in flight)
	exact    bool // a read deadline is set (ReadTimeout, the TLS handshake's)
	kicked   bool // the sweeper set the read deadline in the past; under c.mu
	swept    bool // registered with the Server's sweeper
	b        [1]byte
	relShift uint8 // idleRelease << relShift is this connection's release spell
	kickedAt int64 // the waitSince of the spell it kicked; under c.mu

	// The spell the reader waits in, for the sweeper: when it began (the
	// sweeper's clock) << 5 | relShift << 2 | its kind; 0: none.
	waitSince atomic.Int64
}

// maxRelShift bounds the growth of a connection's release spell: a
// connection that calls again soon after it gave its buffers back, over and
// over (every second or two: a heartbeat), would pay for taking them again
// and for a new goroutine each time; its spell doubles instead, up to 64
// idleReleases.
const maxRelShift = 6

// Kinds of idle spells.
const (
	spellRelease = 1 + iota // until the buffers are given back
	spellRest               // the rest of IdleTimeout, after that
	spellIdle               // IdleTimeout, with no release before
)

// spell returns how long the spell w (waitSince's value) lasts on s's
// connections.
func (s *Server) spell(w int64) time.Duration {
	rel := s.idleRelease << (w >> 2 & 7)
	switch w & 3 {
	case spellRelease:
		return rel
	case spellRest:
		return s.lim.idleTimeout - rel
	}
	return s.lim.idleTimeout
}

func (r *connReader) Read(p []byte) (int, error) {
	if r.held && len(p) > 0 {
		r.held = false
		p[0] = r.b[0]
		return 1, nil
	}
	if r.got && !r.inFrame && r.c.lim.readTimeout > 0 {
		r.inFrame, r.release = true, false
		r.waitSince.Store(0)
		if err := r.c.setReadDeadline(r.c.lim.readTimeout); err != nil {
			return 0, err
		}
	}
	n, err := r.read(p)
	if n > 0 {
		r.input()
	}
	return n, err
}

// read reads the socket, with raw system calls where it can: they do not
// wake the runtime's monitor thread after the process was idle (rawio).
func (r *connReader) read(p []byte) (int, error) {
	if raw := r.c.raw; raw != nil {
		return raw.Read(p)
	}
	return r.c.nc.Read(p)
}

// input takes note of bytes read.
func (r *connReader) input() {
	if !r.got {
		r.got = true
		if w := r.waitSince.Load(); w&3 == spellRest { // the first since the buffers went back
			r.adaptRelease(r.c.srv.sweep.now()-w>>5, r.c.srv.idleRelease<<r.relShift)
		}
	}
}

// arm readies the read about to block (TCP only): a deadline of ReadTimeout
// when part of a frame is buffered; else, when idle, a spell of first
// idleRelease (to give the buffers back) and then the rest of IdleTimeout,
// which the sweeper watches. A spell begins with input (or renewed, or of a
// new kind); arming again without input goes on with the same one.
func (c *conn) arm() error {
	if c.nc == nil || !c.srv.deadlines() {
		return nil
	}
	rd := &c.rd
	input := rd.got
	if input { // input since the last deadline: a new idle spell
		rd.released = false
	}
	rd.got, rd.inFrame, rd.release = false, c.buffered() > 0, false
	d, rel := c.lim.idleTimeout, c.srv.idleRelease<<rd.relShift
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
		rd.waitSince.Store(0)
		if !rd.inFrame && !rd.exact {
			return nil // no deadline, none set
		}
		return c.setReadDeadline(d)
	}
	if rd.exact { // a frame's deadline, or the handshake's
		if err := c.setReadDeadline(0); err != nil {
			return err
		}
	}
	if !rd.swept {
		rd.swept = true
		c.srv.sweep.add(c, c.srv.shortestSpell())
	}
	kind := int64(spellIdle)
	switch {
	case rd.release:
		kind = spellRelease
	case rd.released:
		kind = spellRest
	}
	kind |= int64(rd.relShift) << 2
	if w := rd.waitSince.Load(); input || rd.renew || w&31 != kind {
		rd.renew = false
		rd.waitSince.Store(c.srv.sweep.now()<<5 | kind)
	}
	return nil
}

// adaptRelease takes note of input that came after the buffers went back,
// gap (ns) after: soon (within 4 release spells of rel), the connection's
// spell doubles; much later (16 spells), it is idleRelease again.
func (r *connReader) adaptRelease(gap int64, rel time.Duration) {
	switch {
	case gap < 4*int64(rel) && r.relShift < maxRelShift:
		r.relShift++
	case gap >= 16*int64(rel):
		r.relShift = 0
	}
}

// shortestSpell is the shortest idle spell of the server's connections.
func (s *Server) shortestSpell() time.Duration {
	d := maxTick * 4
	for _, v := range []time.Duration{s.idleRelease, s.lim.idleTimeout} {
		if v > 0 {
			d = min(d, v)
		}
	}
	return d
}

// unkick takes note of a timeout: it reports whether the sweeper caused it
// (a spell is over) rather than a deadline of the connection's own, whose
// deadline it clears, so that arm sets what the next read needs. stale: the
// sweeper kicked a spell that is over already, between the reader's taking
// note of that spell's end and its arming the next one (the sweeper looks
// at the connections a tick at a time): the kick is not for the spell the
// reader waits in now.
func (c *conn) unkick() (kicked, stale bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	kicked = c.rd.kicked
	c.rd.kicked = false
	c.rd.exact = true // in the past, or expired: arm replaces it
	return kicked, kicked && c.rd.kickedAt != c.rd.waitSince.Load()
}

// await blocks, under the deadline armed, until input arrives, reading one
// byte that Read hands out next.
func (r *connReader) await() error {
	n, err := r.c.nc.Read(r.b[:])
	if n > 0 {
		r.held = true
		r.input()
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
	if len(c.local) == 0 {
		putOutBuffer(c.local)
		c.local = nil
	}
	c.mu.Lock()
	if !c.out.Flushing() && len(c.out.Out) == 0 {
		c.putQueueBuffersLocked()
	}
	if h := c.srv.testHookRelease; h != nil {
		h(c) // under c.mu
	}
	c.mu.Unlock()
}

// setReadDeadline sets the read deadline d from now (none for d <= 0)
// unless Shutdown stopped reading.
func (c *conn) setReadDeadline(d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping.Load() {
		return errStopped
	}
	c.nc.SetReadDeadline(deadline(d))
	c.rd.exact = d > 0
	c.rd.kicked = false // a kick not seen yet is overwritten
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
		_, err := c.std.w.Write(b)
		return err
	}
	if c.raw != nil {
		return writeChunks(rawWriter{c}, b, c.lim.writeTimeout, &c.wdl)
	}
	return writeChunks(c.nc, b, c.lim.writeTimeout, &c.wdl)
}

// rawWriter writes a connection's socket with raw system calls (rawio),
// under the connection's write deadline: like its reads, a write after
// the process was idle then wakes no runtime monitor thread. Only the
// flusher writes (core.out's claim), so c.raw's write side has one user
// at a time, as with tryWrite.
type rawWriter struct{ c *conn }

func (w rawWriter) Write(b []byte) (int, error)        { return w.c.raw.Write(b) }
func (w rawWriter) SetWriteDeadline(t time.Time) error { return w.c.nc.SetWriteDeadline(t) }

// deadliner is a connection whose writes take deadlines.
type deadliner interface {
	Write(b []byte) (int, error)
	SetWriteDeadline(t time.Time) error
}

// monoBase is the origin of the write deadlines kept (writeChunks).
var monoBase = time.Now()

// writeChunks writes b to w in writeChunk pieces, each of which must be
// written within wt (zero: no bound), in fact within 7/8 of wt to wt: *dl
// is the write deadline set (since monoBase), moved only when it would
// leave a piece less than 7/8 of wt, so that a connection writing often
// does not modify its timer for every write.
func writeChunks(w deadliner, b []byte, wt time.Duration, dl *time.Duration) error {
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		if wt > 0 {
			// time.Since reads only the monotonic clock; the wall clock
			// (time.Now) is read only when the deadline moves.
			if mono := time.Since(monoBase); *dl < mono+wt-wt/8 {
				*dl = mono + wt
				if err := w.SetWriteDeadline(time.Now().Add(wt)); err != nil {
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
		c.unpark() // parked: no read to interrupt (park.go)
		return
	}
	if d, ok := c.std.r.(readDeadliner); ok && d.SetReadDeadline(aLongTimeAgo) == nil {
		return
	}
	if cl, ok := c.std.r.(io.Closer); ok {
		cl.Close()
	}
}

// drop closes a TCP connection at once; a stdio one stops reading
// (transport.drop).
func (c *conn) drop() {
	if c.nc != nil {
		closeNow(c.nc)
		c.unpark()
		return
	}
	c.interrupt()
}
