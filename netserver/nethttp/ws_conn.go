package nethttp

// NOTE: a WebSocket connection on the core. The reader (serve, on the
// hijack handler's goroutine) reads frames with ws.Reader from the hijacked
// connection, which first hands out what fasthttp had buffered; messages
// are handed to the core out of the reader's buffer without a copy. Every
// frame the server sends goes through the core's output, so one writer at a
// time writes them and a control frame never falls inside a data frame:
// responses and messages to the peer are framed by begin and end, pings,
// pongs and close frames queued whole (queueRaw), a close frame last.

import (
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/jetrpc/jetrpc/auth"
	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/netserver"
	"github.com/jetrpc/jetrpc/netserver/internal/seam"
)

// wsConn is one WebSocket connection.
type wsConn struct {
	core   seam.Core
	s      *HTTPServer
	nc     net.Conn // the hijacked connection
	rd     ws.Reader
	src    wsSource
	ctl    []byte // a control frame being built (the reader's)
	pinged bool   // a ping is out and nothing came since
	// zip compresses what the server sends under permessage-deflate;
	// nil when it was not agreed. It keeps no context, so the goroutines
	// that end frames use it at once.
	zip *ws.Compressor
	dfl ws.Deflate // what was agreed, for the reader
}

// setDeflate turns permessage-deflate on as agreed, compressing messages of
// at least min bytes.
func (c *wsConn) setDeflate(d ws.Deflate, min int) {
	c.zip, c.dfl = new(ws.Compressor), d
	c.zip.Reset(d, ws.Server, min, true)
}

func newWSConn(s *HTTPServer, nc net.Conn, id *auth.Identity) *wsConn {
	c := &wsConn{s: s, nc: nc}
	c.src.nc = nc
	ctx := seam.WithTLS(withOrigin(s.ctx, netserver.WS, nc.RemoteAddr()), rawConn(nc))
	if id != nil {
		ctx = auth.WithIdentity(ctx, id)
	}
	c.core = s.lim.host.NewCore(c, nc, ctx, uint8(netserver.WS), false, false, id)
	return c
}

// wsSource is what the ws.Reader reads from: the connection, noting that
// bytes came.
type wsSource struct {
	nc  net.Conn
	got bool
}

func (r *wsSource) Read(p []byte) (int, error) {
	n, err := r.nc.Read(p)
	if n > 0 {
		r.got = true
	}
	return n, err
}

// A server frame's header: 2 bytes, then 2 or 8 of length. begin reserves
// the 2 every frame has; end moves longer payloads up for the length.
const wsHeadRoom = 2

func (c *wsConn) Begin(b []byte) ([]byte, int) { return append(b, 0, 0), len(b) }

// End completes the frame, compressed when permessage-deflate was agreed
// and the message is at least the threshold (c.zip nil: never).
func (c *wsConn) End(b []byte, mark int) []byte {
	return c.zip.EndFrame(b, mark, mark+wsHeadRoom, ws.OpText, ws.Mask{})
}

func (c *wsConn) Write(b []byte) error { return c.core.WriteConn(c.nc, b) }
func (c *wsConn) Interrupt()           { c.nc.SetReadDeadline(aLongTimeAgo) }

// drop closes the connection under fasthttp's hijacked one, whose Close
// does nothing (fasthttp closes the connection when the hijack handler
// returns, which waits for the reader): this unblocks the reader.
func (c *wsConn) Drop() { rawConn(c.nc).Close() }

func rawConn(nc net.Conn) net.Conn {
	if u, ok := nc.(interface{ UnsafeConn() net.Conn }); ok {
		return u.UnsafeConn()
	}
	return nc
}

// aLongTimeAgo is a read deadline in the past: it unblocks a read.
var aLongTimeAgo = time.Unix(1, 0)

// serve reads messages until the connection ends, then closes it.
func (c *wsConn) serve() {
	c.rd.Reset(&c.src, ws.Server, c.s.max)
	if c.zip != nil {
		c.rd.SetDeflate(c.dfl)
	}
	err := c.core.ReadLoop(c)
	var tooLarge *ws.TooLargeError
	var closed *wsClosed
	linger := false
	switch code := ws.CloseCode(err); {
	case errors.As(err, &closed):
		c.logClose(closed.code, closed.reason)
		c.core.Drain(true, wsCloseAnswer)
		c.queueClose(closed.code, "")
	case err == seam.ErrStopped:
		c.core.Drain(true, 0)
		if c.queueClose(ws.CloseGoingAway, "server shutting down") {
			c.awaitClose()
		}
	case errors.As(err, &tooLarge):
		c.s.lim.observe(netserver.WS, netserver.ConnTooLarge)
		linger = c.fail(ws.CloseTooBig, "", err)
	case code != 0: // 1002 for a protocol error, 1007 for bad UTF-8 or compressed data
		linger = c.fail(code, err.Error(), err)
	default: // the connection broke, or the client went silent
		c.s.lim.log.Debug("netserver: websocket connection ends", "remote", c.core.Remote(), "err", err)
		c.core.Drain(err == io.EOF, 0)
	}
	c.core.Finish()
	if linger { // the client may still be sending: no reset over the close frame
		seam.LingerClose(rawConn(c.nc), wsCloseWait, 1<<20)
	}
	c.Drop()
	c.core.Release()
}

// wsClosed is the close frame that ended reading.
type wsClosed struct {
	code   int
	reason []byte
}

func (*wsClosed) Error() string { return "netserver: websocket closed by the client" }

func (c *wsConn) Ready() bool { return c.rd.Ready() }

// next returns the next message, answering a ping; the client's close frame
// ends reading (a *wsClosed).
func (c *wsConn) Next() ([]byte, error) {
	op, p, err := c.rd.Next()
	if err != nil {
		return nil, err
	}
	c.pinged = false
	switch op {
	case ws.OpPing:
		c.ctl = ws.AppendFrame(c.ctl[:0], ws.OpPong, p, ws.Mask{})
		c.core.QueueRaw(c.ctl, false)
	case ws.OpClose:
		code, reason := ws.ParseClose(p)
		return nil, &wsClosed{code: code, reason: reason}
	case ws.OpText, ws.OpBinary:
		return p, nil
	}
	return nil, nil
}

// arm sets the deadline of a read about to block: the ping interval from
// now, unless Shutdown stopped reading.
func (c *wsConn) Arm() error {
	c.src.got = false
	return c.core.ArmRead(c.nc, c.s.ping)
}

// readError decides what a read error means: nil to go on reading, else
// the reason to stop (a *wsClosed, passed on). A deadline that expires with nothing read sends a
// ping, the next one ends the connection.
func (c *wsConn) ReadError(err error) error {
	switch {
	case c.core.Stopping():
		return seam.ErrStopped
	case !errors.Is(err, os.ErrDeadlineExceeded):
		return err // a *wsClosed too
	case c.src.got:
		c.pinged = false
		return nil
	case !c.pinged:
		c.pinged = true
		c.ctl = ws.AppendFrame(c.ctl[:0], ws.OpPing, nil, ws.Mask{})
		c.core.QueueRaw(c.ctl, false)
		return nil
	}
	return seam.ErrIdle
}

// queueClose queues a close frame, the last frame, and reports whether it
// was queued (not after a write error or another close frame).
func (c *wsConn) queueClose(code int, reason string) bool {
	c.ctl = ws.AppendClose(c.ctl[:0], code, reason, ws.Mask{})
	return c.core.QueueRaw(c.ctl, true)
}

// fail fails the connection for a broken rule: the answers computed so far
// are written, then the close frame; calls still running are cancelled. It
// reports whether the close frame was queued.
func (c *wsConn) fail(code int, reason string, err error) bool {
	c.s.lim.log.Debug("netserver: websocket connection failed", "remote", c.core.Remote(), "err", err)
	c.core.Handoff()
	c.core.Cancel()
	return c.queueClose(code, reason)
}

// awaitClose waits, at most wsCloseWait, for the client's answer to our
// close frame, discarding what comes before it.
func (c *wsConn) awaitClose() {
	c.nc.SetReadDeadline(time.Now().Add(wsCloseWait))
	for {
		op, _, err := c.rd.Next()
		if err != nil || op == ws.OpClose {
			return
		}
	}
}

// logClose logs a close frame from the client with an unusual code.
func (c *wsConn) logClose(code int, reason []byte) {
	switch code {
	case ws.CloseNormal, ws.CloseGoingAway, ws.CloseNoStatus:
		return
	}
	c.s.lim.log.Debug("netserver: websocket connection closed by the client", "remote", c.core.Remote(),
		"code", code, "reason", string(reason))
}
