package bench

import (
	"bufio"
	"errors"
	"io"
	"net"
	"sync"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/rawio"
)

// LineServer is the transport baseline for TCP benchmarks: a newline-framed
// server with the same pipelining and write coalescing as jetrpc (read every
// buffered line, answer each into one buffer, write when the input runs dry),
// calling Handle for each line. With EchoLine as Handle it is the raw echo
// server, the transport's limit; with StdlibLine it is the encoding/json
// baseline served over the same loop.
type LineServer struct {
	// Handle appends the answer to line (without its newline) to dst.
	Handle func(dst, line []byte) []byte
	// Framing is the connections' framing: zero or frame.NDJSON reads
	// lines with bufio; frame.Header and frame.Len32 use frame
	// (for baselines of those framings).
	Framing frame.Kind
	// Raw reads and writes TCP and Unix sockets with raw system calls
	// (internal/rawio), as jetrpc's netserver does, where the default is
	// net.Conn's: the limit of the same system calls (see rawio's doc for
	// what they save on a server that goes idle).
	Raw bool

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// StdlibLine returns a Handle that answers with a baseline (Stdlib, or NewStdlibV2's).
func StdlibLine(s Baseline) func(dst, line []byte) []byte {
	return func(dst, line []byte) []byte { return append(dst, s.Process(line)...) }
}

// Serve accepts connections on ln until Close.
func (s *LineServer) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.ln, s.conns = ln, map[net.Conn]struct{}{}
	s.mu.Unlock()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serveConn(c)
	}
}

func (s *LineServer) serveConn(c net.Conn) {
	defer func() {
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.wg.Done()
	}()
	if s.Framing != frame.Auto && s.Framing != frame.NDJSON {
		s.serveFramed(c)
		return
	}
	var rw io.ReadWriter = c
	if s.Raw {
		if rc := rawio.Of(c); rc != nil {
			rw = rc
		}
	}
	r := bufio.NewReaderSize(rw, 64<<10)
	var out []byte
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		if len(line) > 1 {
			n := len(out)
			out = s.Handle(out, line[:len(line)-1])
			if len(out) > n {
				out = append(out, '\n')
			}
		}
		if r.Buffered() == 0 && len(out) > 0 {
			if _, err := rw.Write(out); err != nil {
				return
			}
			out = out[:0]
		}
	}
}

// serveFramed is serveConn's loop for the header and len32 framings.
func (s *LineServer) serveFramed(c net.Conn) {
	r := frame.NewReader(c, s.Framing, 0)
	var out, resp []byte
	for {
		msg, err := r.Next()
		if err != nil {
			return
		}
		if resp = s.Handle(resp[:0], msg); len(resp) > 0 {
			out = frame.AppendFrame(out, s.Framing, resp)
		}
		if !r.Ready() && len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return
			}
			out = out[:0]
		}
	}
}

// Close stops accepting, closes every connection and waits for them.
func (s *LineServer) Close() error {
	s.mu.Lock()
	if s.ln != nil {
		s.ln.Close()
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}
