package httpz

import (
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
)

// Level is the compression level of every writer here: klauspost's
// level 1, its fastest level with matching. Measured on a 64 KiB
// eth_getLogs-like result (demo.Logs, 65,914 bytes; BenchmarkLevel, one
// run on a shared 2-core machine, medians of 3):
//
//	level            wire bytes   ratio   time
//	stateless (-3)       10,492    6.3x   132 us
//	1                     9,731    6.8x   133 us
//	2                     9,724    6.8x   333 us
//	5                     9,658    6.8x   273 us
//	default (6)           9,658    6.8x   394 us
//
// Levels above 1 save under 1% of the bytes for 2-3x the time; stateless
// saves no time and loses 8% of the bytes.
const Level = 1

// Writer compresses into an io.Writer. Writers are pooled: get one from
// NewWriter, and Close gives it back (it must not be used after).
type Writer struct {
	enc  Encoding
	gz   *gzip.Writer
	zl   *zlib.Writer
	sink sink // Append's destination
}

// sink is an io.Writer that appends to b.
type sink struct{ b []byte }

func (s *sink) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}

var writers [3]sync.Pool // by Encoding; Identity's stays empty

// NewWriter returns a pooled Writer that compresses with enc (Gzip or
// Deflate; anything else is Gzip) into w.
func NewWriter(enc Encoding, w io.Writer) *Writer {
	if enc != Deflate {
		enc = Gzip
	}
	z, _ := writers[enc].Get().(*Writer)
	if z == nil {
		z = &Writer{enc: enc}
		if enc == Gzip {
			z.gz, _ = gzip.NewWriterLevel(w, Level) // Level is valid
		} else {
			z.zl, _ = zlib.NewWriterLevel(w, Level)
		}
		return z
	}
	z.reset(w)
	return z
}

func (z *Writer) reset(w io.Writer) {
	if z.gz != nil {
		z.gz.Reset(w)
	} else {
		z.zl.Reset(w)
	}
}

// Write compresses p; what it holds goes out by the next Flush or Close.
func (z *Writer) Write(p []byte) (int, error) {
	if z.gz != nil {
		return z.gz.Write(p)
	}
	return z.zl.Write(p)
}

// Flush writes out everything written so far (a sync flush), so that the
// reader can decode all of it now.
func (z *Writer) Flush() error {
	if z.gz != nil {
		return z.gz.Flush()
	}
	return z.zl.Flush()
}

// Close ends the stream (its trailer), and gives z back to the pool.
func (z *Writer) Close() error {
	var err error
	if z.gz != nil {
		err = z.gz.Close()
	} else {
		err = z.zl.Close()
	}
	z.release()
	return err
}

// Abort gives z back to the pool without ending its stream: for a
// stream cut off, whose trailer must not be written.
func (z *Writer) Abort() { z.release() }

// release gives z back to the pool without ending its stream (its
// destination may be gone).
func (z *Writer) release() {
	z.reset(io.Discard) // drop the destination
	z.sink.b = nil
	writers[z.enc].Put(z)
}

// Append appends src coded with enc onto dst and returns it (Identity:
// src as it is). It does not allocate once the pool is warm and dst has
// room.
func Append(dst []byte, enc Encoding, src []byte) []byte {
	if enc != Gzip && enc != Deflate {
		return append(dst, src...)
	}
	z := NewWriter(enc, nil)
	z.sink.b = dst
	z.reset(&z.sink)
	_, _ = z.Write(src) // a sink does not fail
	if z.gz != nil {
		_ = z.gz.Close()
	} else {
		_ = z.zl.Close()
	}
	dst = z.sink.b
	z.release()
	return dst
}
