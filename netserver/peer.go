package netserver

import (
	"context"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
)

// Messages a handler sends to its client (dispatch.Peer) go into the same
// output as the responses: framed, appended to c.out and flushed by the
// sender unless someone else is writing. A sender waits while MaxPending
// bytes wait to be written, so a client that reads slowly slows the handler
// that notifies it, and one that never reads is dropped after WriteTimeout
// (which fails the waiting senders). Messages sent during a call are written
// before that call's response. A send counts as activity for IdleTimeout.

// initPeer gives the connection its peer and the handlers' contexts: c.ctx
// for tasks, c.rctx (marked as the reader's) for messages run inline.
func (c *conn) initPeer(ctx context.Context) {
	c.peer = dispatch.NewPeer(c.sendPeer, false)
	c.ctx = dispatch.WithPeer(ctx, c.peer)
	c.rctx = dispatch.ReaderContext(c.ctx)
}

// sendPeer queues msg, framed, for the client and flushes it.
func (c *conn) sendPeer(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.werr == nil && !c.ended && c.pending.Load() >= c.srv.maxPending {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.senders++
		c.cond.Wait()
		c.senders--
	}
	if c.werr != nil || c.ended {
		return dispatch.ErrPeerClosed
	}
	b, mark := frame.BeginFrame(c.out.B, c.kind)
	c.out.B = frame.EndFrame(append(b, msg...), c.kind, mark)
	c.addPending(int64(len(c.out.B) - mark))
	c.lastDone = time.Now()
	c.flushLocked()
	return nil
}

// initPeer gives a WebSocket connection its peer and handler contexts.
func (c *wsConn) initPeer(parent context.Context) {
	ctx, cancel := context.WithCancel(parent)
	c.cancel = cancel
	c.peer = dispatch.NewPeer(c.sendPeer, false)
	c.ctx = dispatch.WithPeer(ctx, c.peer)
	c.rctx = dispatch.ReaderContext(c.ctx)
}

// endPeer closes the peer and cancels the handlers still running once the
// connection is gone.
func (c *wsConn) endPeer() {
	c.peer.Close()
	c.cancel()
}

// sendPeer queues msg as one text message for the writer, waiting while
// MaxPending bytes are queued (the writer drops a client that does not read
// for WriteTimeout, which fails the waiting senders).
func (c *wsConn) sendPeer(ctx context.Context, msg []byte) error {
	c.mu.Lock()
	for !c.dead && c.pending >= c.cfg.maxPending {
		if err := ctx.Err(); err != nil {
			c.mu.Unlock()
			return err
		}
		c.cond.Wait()
	}
	if c.dead {
		c.mu.Unlock()
		return dispatch.ErrPeerClosed
	}
	b := getWSBuf()
	b.B = append(b.B, msg...)
	c.queue = append(c.queue, b)
	c.pending += len(b.B)
	c.mu.Unlock()
	c.signal()
	return nil
}
