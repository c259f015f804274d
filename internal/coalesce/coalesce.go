// Package coalesce is the write combining that the client's streams and
// WebSockets and the server's connection core share: frames are appended to
// one queue under the owner's lock, and whoever finds the queue full and
// nobody writing becomes the flusher, writing it outside the lock.
package coalesce

// NOTE: the flush loop. Flush swaps Out with the spare buffer (the one
// written last time), releases the lock, writes, and takes the lock again;
// meanwhile the others append to the new Out and return (Flushing is
// true). It loops until Out stays empty. So a lone writer pays one write
// and no goroutine hand-off, and many share writes. The owner plugs its
// writes and its accounting in through Sink; the bounds (how much may
// queue, who waits) are the owner's.

import "sync"

// MaxKept caps the capacity of a buffer kept after a write: a burst of
// output does not stay pinned.
const MaxKept = 256 << 10

// Sink is what an owner gives Flush: the writes, and what it does after
// each.
type Sink interface {
	// WriteOut writes b, whole frames; the owner's lock is not held.
	WriteOut(b []byte) error
	// Written is told, under the lock again, that a write of n bytes
	// ended with err. It returns false to end the flush (after a failed
	// write, or when the owner can no longer write): Flush then returns.
	Written(n int, err error) bool
}

// Queue is the output of one connection. Its zero value is ready; every
// use holds the owner's lock.
type Queue struct {
	// Out holds the frames waiting to be written: append to it.
	Out      []byte
	spare    []byte // nil while being written
	flushing bool
}

// Flushing reports whether a flush is writing.
func (q *Queue) Flushing() bool { return q.flushing }

// Flush writes Out through s until it stays empty, unless a flush is
// already writing (which will write it). mu is held on entry and on
// return, and released during each write. It returns the error of the
// write after which Written ended it, else nil.
func (q *Queue) Flush(mu sync.Locker, s Sink) error {
	for !q.flushing && len(q.Out) > 0 {
		buf := q.Out
		q.Out, q.spare = q.spare[:0], nil
		q.flushing = true
		mu.Unlock()
		err := s.WriteOut(buf)
		mu.Lock()
		q.flushing = false
		if cap(buf) <= MaxKept {
			q.spare = buf[:0]
		}
		if !s.Written(len(buf), err) {
			return err
		}
	}
	return nil
}

// Reset sets the buffers (nil, or empty ones to reuse); nothing may be
// queued or written.
func (q *Queue) Reset(out, spare []byte) { q.Out, q.spare = out[:0], spare[:0] }

// Buffers returns the buffers, to be given back to a pool after the last
// write, and forgets them.
func (q *Queue) Buffers() (out, spare []byte) {
	out, spare = q.Out, q.spare
	q.Out, q.spare = nil, nil
	return out, spare
}

// Claim makes the caller the writer until Release, as a flush is while it
// writes: the others append to Out and return, and Flush does nothing. It
// returns what was queued (to be written first, since it came first) and
// leaves Out empty; ok is false, and nothing changes, when a flush is
// writing. The owner's lock is held. A streamed response claims the
// output for as long as its pieces go out, so that nothing falls inside
// it.
func (q *Queue) Claim() (queued []byte, ok bool) {
	if q.flushing {
		return nil, false
	}
	q.flushing = true
	queued = q.Out
	q.Out, q.spare = q.spare[:0], nil
	return queued, true
}

// Release ends a Claim; buf is the buffer Claim returned, kept for reuse.
// The owner's lock is held; the owner flushes what was queued meanwhile.
func (q *Queue) Release(buf []byte) {
	q.flushing = false
	if cap(buf) <= MaxKept {
		q.spare = buf[:0]
	}
}
