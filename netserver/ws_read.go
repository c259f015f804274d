package netserver

import (
	"errors"
	"time"

	"github.com/jetrpc/jetrpc/frame/ws"
)

// NOTE: the reading side of a WebSocket connection: frames are read with
// frame/ws on the hijacked connection (the websocket package's
// reader is never used, so it buffers nothing), control frames answered
// here, and each message handed to handle (ws.go).

func (c *wsConn) readWait() time.Duration { return 2 * c.cfg.ping }

// serve reads messages until the connection ends, then stops the writer.
func (c *wsConn) serve() {
	c.rd.Reset(c.nc, ws.Server, c.cfg.maxMessage)
	go c.writeLoop()
	for c.awaitRoom() && c.readOne() {
	}
	close(c.rdone)
	c.peer.Close()
	c.mu.Lock()
	c.dead = true
	c.cond.Broadcast()
	c.mu.Unlock()
	c.signal()
	<-c.wdone
}

// readOne reads a message and handles it, or answers a control frame; it
// reports whether the connection goes on. Any frame, a pong too, extends
// the read deadline.
func (c *wsConn) readOne() bool {
	if c.nc.SetReadDeadline(time.Now().Add(c.readWait())) != nil {
		return false
	}
	op, p, err := c.rd.Next()
	switch {
	case err != nil:
		c.readFailed(err)
		return false
	case op == ws.OpPing:
		c.ctl = ws.AppendFrame(c.ctl[:0], ws.OpPong, p, ws.Mask{})
		return c.writeControl(c.ctl, time.Now().Add(wsCloseWait)) == nil
	case op == ws.OpClose:
		code, reason := ws.ParseClose(p)
		c.writeClose(code, "") // the echo: no close is sent twice
		c.logEnd(code, reason)
		return false
	case op != ws.OpPong:
		c.handle(p)
	}
	return true
}

// readFailed ends the connection after a read error: a message over the
// limit gets close 1009, a broken protocol 1002.
func (c *wsConn) readFailed(err error) {
	var tooLarge *ws.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		c.writeClose(ws.CloseTooBig, "")
	case errors.Is(err, ws.ErrProtocol):
		c.writeClose(ws.CloseProtocolError, err.Error())
	}
	c.cfg.log.Debug("netserver: websocket connection ends", "remote", c.nc.RemoteAddr(), "err", err)
}

// logEnd logs a close frame from the client with an unusual code.
func (c *wsConn) logEnd(code int, reason []byte) {
	switch code {
	case ws.CloseNormal, ws.CloseGoingAway, ws.CloseNoStatus:
		return
	}
	c.cfg.log.Debug("netserver: websocket connection closed by the client", "remote", c.nc.RemoteAddr(),
		"code", code, "reason", string(reason))
}

// awaitRoom blocks while the connection is at its bounds; false when it ends.
func (c *wsConn) awaitRoom() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.dead && (c.pending >= c.cfg.maxPending || c.inflight >= c.cfg.maxInFlight) {
		c.cond.Wait()
	}
	return !c.dead
}
