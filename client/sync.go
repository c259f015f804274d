package client

import (
	"context"
	"sync"
	"sync/atomic"
)

// handlerKey marks the context the Handler runs under (its value is the
// Client), so that Sync called from the Handler does not wait for itself.
type handlerKey struct{}

// syncWaiters are the callers of Sync waiting for the Handler.
type syncWaiters struct {
	mu   sync.Mutex
	n    atomic.Int32 // len(list), read without the lock
	list []syncWaiter
}

type syncWaiter struct {
	target uint64 // the Handler has finished this many messages
	ch     chan struct{}
}

// Sync waits until the Handler has finished every message the server had
// sent on its own that the client had read when Sync was called, or until
// ctx ends (ctx.Err()) or the client closes (ErrClosed). Called right after
// a call returns, it makes sure the notifications the server sent before
// that call's answer have been handled (ACP's session/update notifications
// before the answer to session/prompt, LSP's diagnostics before a
// response): answers complete their calls as soon as they are read, while
// the Handler works through its queue. Messages read after the answer and
// before Sync may be waited for too. From the Handler itself (its context,
// or one derived from it) Sync returns nil at once; without a Handler, or
// over HTTP, it always does.
func (c *Client) Sync(ctx context.Context) error {
	if c.inbound == nil || ctx.Value(handlerKey{}) == c {
		return nil
	}
	target := c.queued.Load()
	if c.handled.Load() >= target {
		return nil
	}
	w := syncWaiter{target: target, ch: make(chan struct{})}
	c.syncs.mu.Lock()
	c.syncs.list = append(c.syncs.list, w)
	c.syncs.n.Add(1)
	// Checked after n counts w: markHandled reads n after it counts a
	// message, without the lock, so a message finished between a check
	// before n.Add and n.Add would release nobody, and w would wait
	// forever. Now either markHandled sees w, or this sees its message.
	if c.handled.Load() >= target {
		c.syncs.list = c.syncs.list[:len(c.syncs.list)-1]
		c.syncs.n.Add(-1)
		c.syncs.mu.Unlock()
		return nil
	}
	c.syncs.mu.Unlock()
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
		c.syncs.drop(w.ch)
		return ctx.Err()
	case <-c.done:
		c.syncs.drop(w.ch)
		return ErrClosed
	}
}

// markHandled counts a message the Handler finished and releases the Sync
// callers it completes.
func (c *Client) markHandled() {
	h := c.handled.Add(1)
	if c.syncs.n.Load() == 0 {
		return
	}
	c.syncs.mu.Lock()
	keep := c.syncs.list[:0]
	for _, w := range c.syncs.list {
		if w.target <= h {
			close(w.ch)
			c.syncs.n.Add(-1)
		} else {
			keep = append(keep, w)
		}
	}
	clear(c.syncs.list[len(keep):])
	c.syncs.list = keep
	c.syncs.mu.Unlock()
}

// drop forgets the waiter of ch, if it is still there.
func (s *syncWaiters) drop(ch chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, w := range s.list {
		if w.ch == ch {
			s.list = append(s.list[:i], s.list[i+1:]...)
			s.n.Add(-1)
			return
		}
	}
}
