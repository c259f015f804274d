package netserver

// NOTE: the WebSocket writer. One goroutine per connection (writeLoop)
// takes every response queued since its last write and writes them as text
// frames in one write (in writeChunk pieces): the frames are built here
// with frame/ws (server frames are not masked), so pipelined calls share
// system calls as on TCP. The writer also sends the pings and the close
// frame of Shutdown. The reader writes its own control frames (pongs, the
// close echo, 1009 and 1002) with writeControl. Both hold wmu for the whole
// of what they write, so a control frame never falls between the pieces of
// a long data frame; closeSent makes sure nothing follows a close frame.

import (
	"net"
	"time"

	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/pool"
)

// writeLoop writes queued responses and pings until the connection ends.
func (c *wsConn) writeLoop() {
	defer close(c.wdone)
	tick := time.NewTicker(c.cfg.ping)
	defer tick.Stop()
	var batch []*pool.Buffer
	for {
		c.mu.Lock()
		if c.dead {
			c.mu.Unlock()
			return
		}
		if c.qhead < len(c.queue) {
			batch = append(batch[:0], c.queue[c.qhead:]...)
			clear(c.queue)
			c.queue, c.qhead = c.queue[:0], 0
			c.mu.Unlock()
			if err := c.writeBatch(batch); err != nil {
				c.fail(err)
				return
			}
			clear(batch)
			continue
		}
		if c.closing && c.inflight == 0 && !c.handling {
			c.mu.Unlock()
			c.sendClose()
			return
		}
		c.mu.Unlock()
		select {
		case <-c.wake:
		case <-c.rdone:
		case <-tick.C:
			c.wbuf = ws.AppendFrame(c.wbuf, ws.OpPing, nil, ws.Mask{})
			if err := c.flushFrames(); err != nil {
				c.fail(err)
				return
			}
		}
	}
}

// writeBatch writes the messages of bs as text frames, as few writes as
// writeChunk allows, and gives their bytes and buffers back.
func (c *wsConn) writeBatch(bs []*pool.Buffer) error {
	var err error
	n := 0
	for _, b := range bs {
		if err == nil {
			c.wbuf = ws.AppendFrame(c.wbuf, ws.OpText, b.B, ws.Mask{})
			if len(c.wbuf) >= writeChunk {
				err = c.flushFrames()
			}
		}
		n += len(b.B)
		putWSBuf(b)
	}
	if err == nil {
		err = c.flushFrames()
	}
	c.mu.Lock()
	c.pending -= n
	c.cond.Broadcast()
	c.mu.Unlock()
	return err
}

// flushFrames writes c.wbuf in chunks, each of which must make progress
// within WriteTimeout, and empties it. After a close frame it writes
// nothing.
func (c *wsConn) flushFrames() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	nc := c.nc
	b := c.wbuf
	if c.closeSent.Load() {
		b = nil
	}
	for len(b) > 0 {
		k := min(len(b), writeChunk)
		if err := nc.SetWriteDeadline(c.deadline()); err != nil {
			return err
		}
		if _, err := nc.Write(b[:k]); err != nil {
			return err
		}
		b = b[k:]
	}
	c.wbuf = c.wbuf[:0]
	if cap(c.wbuf) > maxKeptOutput {
		c.wbuf = nil
	}
	return nil
}

// deadline is the write deadline from now (zero: none).
func (c *wsConn) deadline() time.Time {
	if c.cfg.writeTimeout <= 0 {
		return time.Time{}
	}
	return time.Now().Add(c.cfg.writeTimeout)
}

// writeControl writes b, whole control frames, by the deadline dl, unless
// a close frame has been sent.
func (c *wsConn) writeControl(b []byte, dl time.Time) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closeSent.Load() {
		return nil
	}
	if err := c.nc.SetWriteDeadline(dl); err != nil {
		return err
	}
	_, err := c.nc.Write(b)
	return err
}

// writeClose sends a close frame with code and reason, unless one was
// sent, and reports whether it did. Whoever sends it, nothing follows.
func (c *wsConn) writeClose(code int, reason string) bool {
	frame := ws.AppendClose(nil, code, reason, ws.Mask{})
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closeSent.Swap(true) {
		return false
	}
	if c.nc.SetWriteDeadline(time.Now().Add(wsCloseWait)) != nil {
		return false
	}
	_, err := c.nc.Write(frame)
	return err == nil
}

// fail drops the connection after a write error (a stuck client).
func (c *wsConn) fail(err error) {
	c.cfg.log.Info("netserver: dropping websocket connection", "remote", c.nc.RemoteAddr(), "err", err)
	c.mu.Lock()
	c.dead = true
	c.cond.Broadcast()
	c.mu.Unlock()
	c.closeNet() // unblocks the reader
}

// sendClose sends close 1001 and gives the peer wsCloseWait to answer,
// then closes the connection.
func (c *wsConn) sendClose() {
	if c.writeClose(ws.CloseGoingAway, "server shutting down") {
		t := time.NewTimer(wsCloseWait)
		defer t.Stop()
		select {
		case <-c.rdone:
			return
		case <-t.C:
		}
	}
	c.closeNet()
}

// closeNet closes the connection under fasthttp's hijacked one, whose
// Close does nothing (fasthttp closes the connection when the hijack
// handler returns, which waits for the reader): this unblocks the reader.
func (c *wsConn) closeNet() {
	nc := c.nc
	if u, ok := nc.(interface{ UnsafeConn() net.Conn }); ok {
		nc = u.UnsafeConn()
	}
	nc.Close()
}
