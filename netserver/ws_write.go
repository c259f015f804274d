package netserver

// NOTE: the WebSocket writer. One goroutine per connection (writeLoop)
// takes every response queued since its last write and writes them as text
// frames in one write: the frames are built here (server frames are not
// masked) rather than through the websocket package, whose writers send
// each message with a write of its own, so pipelined calls share system
// calls as on TCP. The package still writes its control frames (pong, close,
// our pings) from other goroutines; httpConn serialises whole writes, and
// each of ours and each of its frames is one write, so frames never
// interleave.

import (
	"encoding/binary"
	"time"

	"github.com/fasthttp/websocket"
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
			if err := c.ws.WriteControl(websocket.PingMessage, nil, c.deadline()); err != nil {
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
			c.wbuf = appendWSFrame(c.wbuf, b.B)
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

// appendWSFrame appends msg as one unmasked text frame (RFC 6455 5.2).
func appendWSFrame(dst, msg []byte) []byte {
	const finText = 0x81
	switch n := len(msg); {
	case n < 126:
		dst = append(dst, finText, byte(n))
	case n < 1<<16:
		dst = binary.BigEndian.AppendUint16(append(dst, finText, 126), uint16(n))
	default:
		dst = binary.BigEndian.AppendUint64(append(dst, finText, 127), uint64(n))
	}
	return append(dst, msg...)
}

// flushFrames writes c.wbuf in chunks, each of which must make progress
// within WriteTimeout, and empties it.
func (c *wsConn) flushFrames() error {
	nc := c.ws.NetConn()
	b := c.wbuf
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

// fail drops the connection after a write error (a stuck client).
func (c *wsConn) fail(err error) {
	c.cfg.log.Info("netserver: dropping websocket connection", "remote", c.ws.RemoteAddr(), "err", err)
	c.mu.Lock()
	c.dead = true
	c.cond.Broadcast()
	c.mu.Unlock()
	c.ws.NetConn().Close() // unblocks the reader
}

// sendClose sends close 1001 and gives the peer wsCloseWait to answer.
func (c *wsConn) sendClose() {
	msg := websocket.FormatCloseMessage(websocket.CloseGoingAway, "server shutting down")
	if c.ws.WriteControl(websocket.CloseMessage, msg, c.deadline()) == nil {
		t := time.NewTimer(wsCloseWait)
		defer t.Stop()
		select {
		case <-c.rdone:
			return
		case <-t.C:
		}
	}
	c.ws.NetConn().Close()
}
