// Package pending is the table of calls waiting for their responses, keyed
// by request id, that both ends of a connection keep: the client's calls to
// a server (package client) and a server's calls to its client
// (dispatch.Peer). It decides who completes a call and when its entry can
// be reused; the owner picks the ids, writes the requests and finds the
// responses.
package pending

// NOTE: who completes a call. A caller registers its Call under a fresh id
// before it writes the request. Whoever removes the Call from the table
// owns its completion: the reader that took it for a response (Take, then
// Resolve or Fail), the caller whose context ended (Abandon, in Wait or
// Settle), or Close, which fails every call still in the table. A caller
// that loses that race waits for the call's signal, which is then already
// (or about to be) sent. The signal channel has room for one and gets
// exactly one per completion, so a pooled Call is reused with its channel.

import (
	"context"
	"sync"
)

// Call is one pending call: embed it in the caller's (pooled) entry. The
// zero value is ready to use. Dst, Res and Err belong to the caller until
// Register and again once Wait or Settle has returned; in between, to
// whoever completes the call.
type Call struct {
	Dst []byte // where Resolve appends the result
	Res []byte // Dst with the result appended, once resolved
	Err error  // the error the call failed with
	// KeepError asks the one that completes the call with an error
	// response to append the response's error object, as it came, to Dst
	// in Res too (a gateway passes it on).
	KeepError bool
	// Then, when set, is told of the completion instead of the signal
	// channel: a call nobody waits for (client.Pool.ForwardAsync). It runs
	// on the goroutine that completes the call and must not block.
	Then Completer

	done chan struct{} // one signal per completion
}

// Completer is told that a Call completed (Call.Then): Res or Err holds
// its answer, and the Call is its owner's again.
type Completer interface {
	Completed(c *Call)
}

// Resolve completes c with result, appended to c.Dst. Only the goroutine
// that removed c from its table (Take) may call it, once.
func (c *Call) Resolve(result []byte) {
	c.Res = append(c.Dst, result...)
	c.signal()
}

// signal tells whoever waits that c is complete.
func (c *Call) signal() {
	if c.Then != nil {
		c.Then.Completed(c)
		return
	}
	c.done <- struct{}{}
}

// Fail completes c with err. Only the goroutine that removed c from its
// table (Take) may call it, once.
func (c *Call) Fail(err error) {
	c.Err = err
	c.signal()
}

// Done returns the channel on which c's completion is signalled, for a
// caller that waits on several calls at once (a hedged call). A receive
// from it takes the signal: the call is then complete, and the caller must
// not Wait or Settle it any more. It is nil before c is first registered.
func (c *Call) Done() <-chan struct{} { return c.done }

// Reset clears Dst, Res, Err, KeepError and Then for the next use of c, keeping its signal
// channel.
func (c *Call) Reset() { c.Dst, c.Res, c.Err, c.KeepError, c.Then = nil, nil, nil, false, nil }

// Table holds the pending calls of one connection by id. The zero value is
// an open, empty table. A Table must not be copied after first use.
type Table struct {
	mu    sync.Mutex
	calls map[uint64]*Call
	err   error // set once: closed
}

// Register adds c under id, unless t is closed: then it returns the error
// t was closed with. c must not be in a table.
func (t *Table) Register(id uint64, c *Call) error {
	if c.done == nil { // c is the caller's alone until it is in the table
		c.done = make(chan struct{}, 1)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	if t.calls == nil {
		t.calls = make(map[uint64]*Call)
	}
	t.calls[id] = c
	return nil
}

// Take removes and returns the call of id, or nil when none is pending.
// The caller then completes it with Resolve or Fail.
func (t *Table) Take(id uint64) *Call {
	t.mu.Lock()
	c := t.calls[id]
	if c != nil {
		delete(t.calls, id)
	}
	t.mu.Unlock()
	return c
}

// AnyPending reports whether any of ids is still pending.
func (t *Table) AnyPending(ids []uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range ids {
		if t.calls[id] != nil {
			return true
		}
	}
	return false
}

// Abandon removes c, registered under id, and reports whether it was still
// there. When it was not, its completion is under way: wait for it (Settle
// does).
func (t *Table) Abandon(id uint64, c *Call) bool {
	t.mu.Lock()
	q := t.calls[id]
	if q == c {
		delete(t.calls, id)
	}
	t.mu.Unlock()
	return q == c
}

// Settle abandons c if it is still pending, else waits for its completion:
// afterwards nobody else touches c.
func (t *Table) Settle(id uint64, c *Call) {
	if !t.Abandon(id, c) {
		<-c.done
	}
}

// Wait waits for c, registered under id, to complete, and returns nil: its
// answer is in c.Res or c.Err. When ctx ends first, c is abandoned and
// Wait returns ctx.Err(), unless its completion was already under way:
// then Wait waits for it and returns nil. Either way nobody else touches c
// afterwards.
func (t *Table) Wait(ctx context.Context, id uint64, c *Call) error {
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
	}
	if !t.Abandon(id, c) {
		<-c.done
		return nil
	}
	return ctx.Err()
}

// Close closes t with err unless it is closed already (the first error
// wins), and reports whether this call closed it. Every call still pending
// fails with t's error, and so do later Registers.
func (t *Table) Close(err error) bool {
	t.mu.Lock()
	first := t.err == nil
	if first {
		t.err = err
	}
	err = t.err
	calls := t.calls
	t.calls = nil
	t.mu.Unlock()
	for _, c := range calls {
		c.Fail(err)
	}
	return first
}

// FailAll fails every call pending with err and leaves t open: a
// connection that is redialled fails the calls that were in flight on the
// one it lost.
func (t *Table) FailAll(err error) {
	t.mu.Lock()
	calls := t.calls
	t.calls = nil
	t.mu.Unlock()
	for _, c := range calls {
		c.Fail(err)
	}
}

// Err returns the error t was closed with, or nil while it is open.
func (t *Table) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}
