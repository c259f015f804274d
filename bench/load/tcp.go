package load

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/jetrpc/jetrpc/netserver/frame"
)

// maxAnswer is the largest answer frame a TCP connection accepts.
const maxAnswer = 64 << 20

// dialTCP opens the connections and returns a worker for each.
func (r *run) dialTCP(ctx context.Context) ([]func(context.Context, *window) error, error) {
	d := &net.Dialer{Timeout: r.cfg.Timeout}
	conns := make([]net.Conn, 0, r.cfg.Conns)
	for range r.cfg.Conns {
		c, err := d.DialContext(ctx, "tcp", r.cfg.Addr)
		if err != nil {
			for _, c := range conns {
				c.Close()
			}
			return nil, err
		}
		conns = append(conns, c)
	}
	workers := make([]func(context.Context, *window) error, len(conns))
	for i, c := range conns {
		workers[i] = func(ctx context.Context, w *window) error {
			defer c.Close()
			stop := context.AfterFunc(ctx, func() { c.Close() })
			defer stop()
			return r.tcpLoop(c, w)
		}
	}
	return workers, nil
}

// tcpLoop fills the window, writes the calls in one write, reads every
// answer that has arrived (at least one), and again, until the bound is hit
// and nothing is in flight, or the connection fails. When no answer comes
// for Timeout, the calls in flight are given up (Unanswered) and it goes on.
func (r *run) tcpLoop(c net.Conn, w *window) error {
	kind, p := r.cfg.Framing, r.cfg.Pipeline
	fr := frame.NewReader(c, kind, maxAnswer)
	out := make([]byte, 0, 64<<10)
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
			var mark int
			out, mark = frame.BeginFrame(out, kind)
			if req.Holes() == 0 {
				out = req.Append(out, 0)
				notes++
			} else {
				out = req.Append(out, w.start(req, now))
			}
			out = frame.EndFrame(out, kind, mark)
			w.counts.Sent++
		}
		if err := c.SetDeadline(time.Now().Add(r.cfg.Timeout)); err != nil {
			return err
		}
		if len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return err
			}
			w.counts.BytesOut += int64(len(out))
			out = out[:0]
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
		if err := r.readAnswers(fr, w); err != nil {
			if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
				return err
			}
			w.finish() // silent for Timeout: give up on the calls in flight
		}
	}
}

// readAnswers reads one answer, then every whole one already buffered.
func (r *run) readAnswers(fr *frame.Reader, w *window) error {
	settled := w.counts.OK + w.counts.Errors
	for {
		f, err := fr.Next()
		if err != nil {
			if tooLarge := (*frame.TooLargeError)(nil); !errors.As(err, &tooLarge) {
				return err
			}
			w.counts.Malformed++
		} else {
			w.check(f, r.now())
		}
		if !fr.Ready() || w.inflight() == 0 {
			r.progress(w.counts.OK + w.counts.Errors - settled)
			return nil
		}
	}
}
