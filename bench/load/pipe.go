package load

import (
	"net"
	"time"
)

// pipe is one connection of a stream transport (TCP, WebSocket) as
// pipeLoop drives it.
type pipe interface {
	// add appends req (with call id id; 0 for a notification), framed, to
	// the output and returns its size without framing.
	add(req *Request, id uint64) int
	// flush arms the deadline (timeout from now) and writes the output.
	flush(timeout time.Duration) error
	// readAnswers reads one answer, then every whole one already buffered.
	readAnswers(r *run, w *window) error
}

// pipeLoop fills the window, writes the requests in one write, reads every
// answer that has arrived (at least one), and again, until the bound is hit
// and nothing is in flight, or the connection fails. When no answer comes
// for Timeout, the calls in flight are given up (Unanswered) and it goes on.
func (r *run) pipeLoop(c pipe, w *window) error {
	p := r.cfg.Pipeline
	stopped := false
	for {
		now := r.now()
		notes := 0
		for !stopped && w.inflight() < p && notes < p { // at most p notifications a burst
			req := r.claim(w, now)
			if req == nil {
				stopped = true
				break
			}
			var id uint64
			if req.Holes() == 0 {
				notes++
			} else {
				id = w.start(req, now)
			}
			w.counts.BytesOut += int64(c.add(req, id))
			w.counts.Sent++
		}
		if err := c.flush(r.cfg.Timeout); err != nil {
			return err
		}
		if notes > 0 {
			w.counts.Notifications += int64(notes)
			w.last = r.now()
			r.progress(int64(notes))
		}
		if w.inflight() == 0 {
			if stopped {
				return nil
			}
			continue
		}
		if err := c.readAnswers(r, w); err != nil {
			if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
				return err
			}
			w.finish() // silent for Timeout: give up on the calls in flight
		}
	}
}
