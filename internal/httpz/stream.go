package httpz

import (
	"bufio"
	"io"
)

// StreamKey is the fasthttp user value under which jetrpc's HTTP server
// (netserver/nethttp) offers a route's handler the coding its event
// streams may use, an Encoding, when the request's Accept-Encoding allows
// one and compression is on; absent: none (see package
// internal/httpz/fasthttpz).
const StreamKey = "jetrpc.httpz.stream"

// Stream runs fn with a *bufio.Writer whose every Flush sends what it
// holds through a compressor of enc and on to w, which it flushes: a
// stream writer that flushes per event (an SSE writer) stays one, each
// event decodable as it arrives. When fn returns, Stream ends the coded
// stream (its trailer) and flushes w.
func Stream(enc Encoding, w *bufio.Writer, fn func(*bufio.Writer)) {
	z := NewWriter(enc, w)
	f := &flusher{z: z, w: w}
	bw := bufio.NewWriterSize(f, 4<<10)
	fn(bw)
	if bw.Flush() == nil && !f.failed {
		if z.Close() == nil {
			_ = w.Flush()
		}
		return
	}
	z.release() // the connection failed: no trailer to write
}

// flusher is the writer under Stream's bufio.Writer: each write is
// compressed and flushed out at once.
type flusher struct {
	z      *Writer
	w      *bufio.Writer
	failed bool
}

func (f *flusher) Write(p []byte) (int, error) {
	if _, err := f.z.Write(p); err != nil {
		f.failed = true
		return 0, err
	}
	if err := f.z.Flush(); err != nil {
		f.failed = true
		return 0, err
	}
	if err := f.w.Flush(); err != nil {
		f.failed = true
		return 0, err
	}
	return len(p), nil
}

var _ io.Writer = (*flusher)(nil)
