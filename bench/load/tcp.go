package load

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/jetrpc/jetrpc/frame"
)

// maxAnswer is the largest answer frame a TCP connection accepts.
const maxAnswer = 64 << 20

// dialTCP opens the connections and returns a worker for each.
func (r *run) dialTCP(ctx context.Context) ([]func(context.Context, *window) error, error) {
	d := r.streamDialer()
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
	dial := func(ctx context.Context) (net.Conn, error) { return d.DialContext(ctx, "tcp", r.cfg.Addr) }
	workers := make([]func(context.Context, *window) error, len(conns))
	for i, c := range conns {
		workers[i] = func(ctx context.Context, w *window) error {
			return keepGoing(ctx, r, w, c, dial, r.serveTCP)
		}
	}
	return workers, nil
}

// serveTCP runs the pipelined loop on c until it ends, then closes c.
func (r *run) serveTCP(ctx context.Context, c net.Conn, w *window) error {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	return r.pipeLoop(newTCPConn(c, r.cfg.Framing), w)
}

// tcpConn is one TCP connection of a run (a pipe).
type tcpConn struct {
	c    net.Conn
	kind frame.Kind
	fr   *frame.Reader
	out  []byte
}

func newTCPConn(c net.Conn, kind frame.Kind) *tcpConn {
	return &tcpConn{c: c, kind: kind, fr: frame.NewReader(c, kind, maxAnswer), out: make([]byte, 0, 64<<10)}
}

func (t *tcpConn) add(req *Request, id uint64) int {
	b, mark := frame.BeginFrame(t.out, t.kind)
	start := len(b)
	b = req.Append(b, id)
	n := len(b) - start
	t.out = frame.EndFrame(b, t.kind, mark)
	return n
}

func (t *tcpConn) flush(timeout time.Duration) error {
	if err := t.c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	if len(t.out) == 0 {
		return nil
	}
	_, err := t.c.Write(t.out)
	t.out = t.out[:0]
	return err
}

// readAnswers reads one answer, then every whole one already buffered.
func (t *tcpConn) readAnswers(r *run, w *window) error {
	fr := t.fr
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
