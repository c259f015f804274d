package netserver

// NOTE: a stream connection (TCP, any net.Listener, or stdio) on the core.
// One reader goroutine runs readLoop: it takes frames from a frame.Reader
// and hands each to the core (handle), pausing whenever no whole frame is
// buffered or the bounds are reached. Responses use the framing of the
// connection, which Auto fixes with the first frame (begin and end).
//
// Timeouts (TCP only): before a read that may block the reader sets a
// deadline of ReadTimeout when part of a frame is buffered, else begins an
// idle spell of IdleTimeout, which the Server's sweeper watches without a
// deadline (sweep.go); one that ends while work is in flight is renewed. An
// idle spell begins shorter, idleRelease: when it is over the connection
// gives its read and output buffers back (releaseIdle) and parks: on Linux
// it then waits without a goroutine (park.go), so that an idle connection
// costs little more than its state.

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"time"

	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/rawio"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
)

// Reasons readLoop ends without an error of the transport.
var (
	errStopped     = seam.ErrStopped
	errReadTimeout = errors.New("netserver: frame not completed within ReadTimeout")
	errIdle        = seam.ErrIdle
)

// conn is one stream connection: TCP (c.nc set) or stdio.
type conn struct {
	core
	srv *Server
	std *stdioRW   // stdio's streams; nil for TCP, which reads and writes nc
	rd  connReader // nc wrapped with the frame-start read deadline (TCP)

	fr *frame.Reader // the reader goroutine's

	ip      netip.Addr // the client's, for MaxConnsPerIP
	counted bool       // ip holds a count of MaxConnsPerIP
	kind    frame.Kind // framing of responses, fixed after the first frame (the reader's)
	sweepAt int32      // index in srv.sweep's connections; -1: not there
	pk      parkState  // under srv.parker.mu (park_linux.go)
}

// stdioRW are a stdio connection's streams: r is what Shutdown interrupts.
type stdioRW struct {
	r io.Reader
	w io.Writer
}

// newConn makes the conn of nc (TCP), or with nc nil of stdio's r and w.
func newConn(s *Server, nc net.Conn, r io.Reader, w io.Writer) *conn {
	c := &conn{srv: s, sweepAt: -1}
	c.nc = nc
	if nc == nil {
		c.std = &stdioRW{r, w}
	}
	c.rd.c = c
	via, remote := Stdio, net.Addr(nil)
	if nc != nil {
		via, remote = TCP, nc.RemoteAddr()
	}
	parent, binding := s.lim.sec.Bind(withTLS(withOrigin(nil, s.e, via, remote), nc))
	c.core.init(&s.lim, s.e, parent, c, via, false)
	c.gate = s.lim.sec.newGate(via, remote, binding, nil) // Options.Guard (auth.go)
	var src io.Reader = r
	if nc != nil {
		src = &c.rd
		c.raw, c.rawTried = rawio.Of(nc), true // connReader.Read's (rawio)
	}
	c.fr = getReader(src, s.framing, s.maxMessage)
	if nc == nil {
		// One stream: memory is no concern, and a peer that writes a
		// large message in one synchronous write (an io.Pipe) must not
		// find the answer to an earlier one (or the error for this one)
		// waiting for it to read while the reader waits for the rest.
		c.fr.SetInitialSize(stdioBuffer)
	}
	c.kind = s.framing
	return c
}

// release returns the pooled resources; nothing may use c afterwards.
func (c *conn) release() {
	c.srv.sweep.remove(c)
	if c.counted {
		c.srv.lim.sec.CloseConn(c.ip)
		c.counted = false
	}
	c.core.release()
	if c.fr != nil {
		putReader(c.fr)
		c.fr = nil
	}
}

// buffered is the input read and not yet handed out.
func (c *conn) buffered() int {
	if c.fr == nil {
		return 0
	}
	return c.fr.Buffered()
}

func (c *conn) begin(b []byte) ([]byte, int)  { return frame.BeginFrame(b, c.kind) }
func (c *conn) end(b []byte, mark int) []byte { return frame.EndFrame(b, c.kind, mark) }

// stdioBuffer is the first read buffer of a stdio connection, as large as
// TCP connections' was before they began at 512 bytes.
const stdioBuffer = 4 << 10

// errPark: the connection went idle and gave its buffers back; its reader
// goes on in a new goroutine.
var errPark = errors.New("netserver: parked")

// serveTracked serves a connection registered in Server.conns, and returns
// why reading ended (errPark when another goroutine took over).
//
// An idle connection that gave its buffers back ends its goroutine (readLoop
// returns errPark) and parks (park.go): it waits without a goroutine, or
// where it cannot, on a new one. The reader's stack grew while it handled
// messages and the runtime would not shrink it below 4 KiB, while a new
// goroutine starts small (the average stack size in use) and waiting needs
// little.
func (c *conn) serveTracked() error {
	err := c.handshake() // TLS only, once (tls.go)
	if err == nil {
		c.authenticateConn() // Options.Guard's Auth, once (auth.go)
		err = c.readLoop(c)
	}
	if err == errPark {
		c.park()
		return err
	}
	c.logEnd(err)
	c.drain(orderly(err), 0)
	c.finish()
	c.closeTransport(err)
	via, err := c.via, c.refusedErr(err)
	c.release()
	c.srv.lim.observe(via, ConnClosed)
	c.srv.conns.remove(&c.core)
	return err
}

func (c *conn) ready() bool { return c.fr != nil && c.fr.Ready() }

// next returns the next frame. An idle connection that gave its reader back
// waits for input without it, after moving to a new goroutine (errPark).
func (c *conn) next() ([]byte, error) {
	if c.fr == nil {
		if c.rd.park {
			c.rd.park = false
			return nil, errPark
		}
		if err := c.rd.await(); err != nil {
			return nil, err
		}
		c.fr = getReader(&c.rd, c.kind, c.srv.maxMessage)
	}
	msg, err := c.fr.Next()
	if c.kind == frame.Auto {
		c.kind = c.fr.Kind()
	}
	return msg, err
}

// readError decides what a Next error means: nil to go on reading, else the
// reason to stop.
func (c *conn) readError(err error) error {
	if tl, ok := err.(*frame.TooLargeError); ok {
		c.lim.observe(c.via, ConnTooLarge)
		c.local = c.appendTooLarge(c.local, tl)
		return nil
	}
	switch {
	case err == errPark:
		return err
	case c.stopping.Load():
		return errStopped
	case errors.Is(err, frame.ErrBroken):
		c.local = c.appendError(c.local, encode.CodeParseError, encode.AppendString(nil, err.Error()))
		return err
	case errors.Is(err, os.ErrDeadlineExceeded):
		return c.timedOut()
	}
	return err
}

// appendTooLarge answers an oversized frame: -32600 with id null.
func (c *conn) appendTooLarge(dst []byte, tl *frame.TooLargeError) []byte {
	data := c.srv.tooLargeData
	if tl.Limit != c.srv.maxMessage {
		data = appendTooLargeData(nil, tl.Limit)
	}
	return c.appendError(dst, encode.CodeInvalidRequest, data)
}

func appendTooLargeData(dst []byte, limit int) []byte {
	return encode.AppendString(dst, "message larger than "+strconv.Itoa(limit)+" bytes")
}

// appendError appends an error response with id null, framed.
func (c *conn) appendError(dst []byte, code encode.Code, data []byte) []byte {
	b, mark := c.begin(dst)
	b = encode.AppendError(b, nil, code, code.String(), data)
	return c.end(b, mark)
}

// timedOut handles a read that timed out: the sweeper's kick at the end of
// an idle spell (the time to give an idle connection's buffers back, or the
// end of an idle connection) or the deadline of a stalled frame; with input
// since the spell began, or work in flight, the spell is renewed.
func (c *conn) timedOut() error {
	kicked, stale := c.unkick()
	switch {
	case stale: // for a spell that was over already: the one now goes on
		return nil
	case kicked && c.rd.got: // input since the spell began: not idle
		c.rd.renew = true
		return nil
	case !kicked && (c.buffered() > 0 || c.rd.inFrame):
		return errReadTimeout
	case !kicked:
		c.rd.renew = true // a deadline of a spell that is over (a handshake's)
		return nil
	case c.rd.release:
		c.releaseIdle()
		return nil
	case c.idleFor(c.lim.idleTimeout):
		return errIdle
	}
	c.rd.renew = true
	c.rd.park = c.fr == nil // woken from parking with work in flight: park again
	return nil
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
	log := c.lim.log
	switch {
	case cause == io.EOF, cause == errStopped, c.nc == nil:
		return
	case cause == errIdle:
		log.Debug("netserver: closing idle connection", "remote", c.remote())
	case cause == errReadTimeout, errors.Is(cause, frame.ErrBroken), cause == io.ErrUnexpectedEOF:
		log.Info("netserver: closing connection", "remote", c.remote(), "reason", cause.Error())
	default:
		log.Debug("netserver: connection ended", "remote", c.remote(), "err", cause)
	}
}

// closeTransport closes a TCP connection. When reading stopped with input
// perhaps still coming (Shutdown, broken framing, a stalled frame), it first
// half-closes and drains the input for up to drainTime: closing a socket
// with unread input sends a reset, which can destroy the responses just
// written before the peer reads them.
func (c *conn) closeTransport(cause error) {
	if c.nc == nil {
		return
	}
	linger := cause == errStopped || cause == errReadTimeout || errors.Is(cause, frame.ErrBroken)
	if linger && c.werr == nil {
		lingerClose(c.nc, drainTime, -1)
	}
	c.nc.Close()
}

// lingerClose half-closes nc (where it can) and reads and discards what the
// peer still sends, for at most d and n bytes (n < 0: no bound), so that
// closing it afterwards sends no reset over the last responses.
func lingerClose(nc net.Conn, d time.Duration, n int64) {
	if cw, ok := nc.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	if nc.SetReadDeadline(time.Now().Add(d)) != nil {
		return
	}
	if n < 0 {
		io.Copy(io.Discard, nc)
	} else {
		io.CopyN(io.Discard, nc, n)
	}
}
