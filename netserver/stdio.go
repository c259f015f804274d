package netserver

import (
	"io"
	"sync"

	"github.com/jetrpc/jetrpc/frame"
)

// ServeStdio serves one connection over a reader/writer pair, such as
// os.Stdin and os.Stdout (LSP and MCP servers run this way), with the
// framing of Options.Framing. It returns nil when r reaches EOF, after every
// response has been written; ErrServerClosed after Shutdown;
// ErrUnauthenticated when the guard's Auth refused the client; otherwise the
// error that ended it (broken framing, io.ErrUnexpectedEOF, a read or write
// error). Neither r nor w is closed on return.
//
// The timeouts of Options do not apply. To stop reading, Shutdown sets a
// past read deadline on r if it takes one (a net.Conn, a pollable *os.File),
// else closes r if it is an io.Closer.
func (s *Server) ServeStdio(r io.Reader, w io.Writer) error {
	c := newConn(s, nil, r, w)
	if err := s.conns.add(&c.core); err != nil {
		c.release()
		return err
	}
	s.lim.observe(Stdio, ConnOpened)
	switch err := c.serveTracked(); err {
	case io.EOF:
		return nil
	case errStopped:
		return ErrServerClosed
	case ErrUnauthenticated: // Options.Guard refused the client (auth.go)
		return err
	default:
		if c.stopping.Load() {
			return ErrServerClosed
		}
		return err
	}
}

// readers pools frame.Readers; they go back without a buffer, so the pool
// never pins a large one.
var readers = sync.Pool{New: func() any { return new(frame.Reader) }}

func getReader(r io.Reader, kind frame.Kind, maxMessage int) *frame.Reader {
	fr := readers.Get().(*frame.Reader)
	fr.Reset(r, kind, maxMessage)
	return fr
}

func putReader(fr *frame.Reader) {
	fr.Reset(nil, frame.Auto, 0)
	fr.Release()
	readers.Put(fr)
}
