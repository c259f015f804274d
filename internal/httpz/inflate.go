package httpz

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
)

var (
	// ErrTooLarge: the body inflates past the limit. Inflation stopped
	// there: at most limit+1 bytes were inflated.
	ErrTooLarge = errors.New("httpz: inflated body over the limit")
	// ErrMalformed: the body is not a valid stream of its coding (a bad
	// header, a corrupt block, a checksum that does not match, cut short).
	ErrMalformed = errors.New("httpz: malformed compressed body")
)

// ContentEncoding parses a Content-Encoding value: one of gzip, x-gzip,
// deflate or identity (any case, surrounding whitespace ignored); empty is
// Identity. Anything else (another coding, a list of several) is not ok:
// the body cannot be read (HTTP's answer is 415).
func ContentEncoding[T string | []byte](v T) (Encoding, bool) {
	i, j := skipOWS(v, 0), len(v)
	for j > i && isOWS(v[j-1]) {
		j--
	}
	v = v[i:j]
	switch {
	case len(v) == 0, equalFold(v, "identity"):
		return Identity, true
	case equalFold(v, "gzip"), equalFold(v, "x-gzip"):
		return Gzip, true
	case equalFold(v, "deflate"):
		return Deflate, true
	}
	return Identity, false
}

// inflater is the pooled state of one inflation.
type inflater struct {
	src bytes.Reader
	buf *bufio.Reader // for a source that is not an io.ByteReader
	gz  gzip.Reader
	zl  io.ReadCloser // zlib; nil until the first valid zlib stream
	fl  io.ReadCloser // raw deflate
	in  source        // InflateFrom's reader
}

// source is a reader that keeps its first error other than io.EOF: a read
// error is the source's (returned as it is), not a malformed body.
type source struct {
	r   io.Reader
	err error
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

var inflaters = sync.Pool{New: func() any { return new(inflater) }}

// Inflate appends src, decoded from enc, onto dst and returns it. The
// decoded size is held to limit: past it, Inflate stops and returns
// ErrTooLarge, having inflated at most limit+1 bytes, and dst grows to
// about limit at most. A body that is not valid is ErrMalformed. Identity
// appends src (ErrTooLarge if it is over limit). It does not allocate once
// the pool is warm and dst has room.
func Inflate(dst []byte, enc Encoding, src []byte, limit int) ([]byte, error) {
	if enc != Gzip && enc != Deflate {
		if len(src) > limit {
			return dst, ErrTooLarge
		}
		return append(dst, src...), nil
	}
	f := inflaters.Get().(*inflater)
	defer inflaters.Put(f)
	f.src.Reset(src)
	defer f.src.Reset(nil)
	return f.inflate(dst, enc, &f.src, src, limit)
}

// InflateFrom is Inflate reading the coded body from r, up to its end. An
// error of r's (other than io.EOF) is returned as it is.
func InflateFrom(dst []byte, enc Encoding, r io.Reader, limit int) ([]byte, error) {
	if enc != Gzip && enc != Deflate {
		return readLimited(dst, r, limit)
	}
	f := inflaters.Get().(*inflater)
	defer inflaters.Put(f)
	f.in = source{r: r}
	defer func() { f.in = source{} }()
	if f.buf == nil {
		f.buf = bufio.NewReaderSize(&f.in, 4<<10)
	} else {
		f.buf.Reset(&f.in)
	}
	defer f.buf.Reset(nil)
	head, _ := f.buf.Peek(2)
	dst, err := f.inflate(dst, enc, f.buf, head, limit)
	if err == ErrMalformed && f.in.err != nil {
		err = f.in.err
	}
	return dst, err
}

// byteReader is what the decoders read without buffering of their own.
type byteReader interface {
	io.Reader
	io.ByteReader
}

// inflate decodes src, whose first bytes are head, onto dst.
func (f *inflater) inflate(dst []byte, enc Encoding, src byteReader, head []byte, limit int) ([]byte, error) {
	r, err := f.decoder(enc, src, head)
	if err != nil {
		return dst, err
	}
	dst, err = readLimited(dst, r, limit)
	if err != nil && err != ErrTooLarge {
		err = ErrMalformed
	}
	return dst, err
}

// decoder readies f's decoder of enc (Gzip or Deflate) on src, whose
// first bytes are head, and returns it.
func (f *inflater) decoder(enc Encoding, src byteReader, head []byte) (io.Reader, error) {
	switch {
	case enc == Gzip:
		if f.gz.Reset(src) != nil { // io.EOF too: an empty body is no gzip
			return nil, ErrMalformed
		}
		return &f.gz, nil
	case isZlib(head):
		if f.zl == nil {
			zl, err := zlib.NewReader(src)
			if err != nil {
				return nil, ErrMalformed
			}
			f.zl = zl
		} else if f.zl.(zlib.Resetter).Reset(src, nil) != nil {
			return nil, ErrMalformed
		}
		return f.zl, nil
	default: // raw deflate, as browsers accept it
		if f.fl == nil {
			f.fl = flate.NewReader(src)
		} else if f.fl.(flate.Resetter).Reset(src, nil) != nil {
			return nil, ErrMalformed
		}
		return f.fl, nil
	}
}

// Reader inflates a coded body as it is read, with no limit of its own:
// for a body streamed to its consumer rather than held. Get one from
// NewReader and give it back with Release.
type Reader struct {
	f *inflater
	r io.Reader
}

// NewReader returns a Reader of src coded as enc, on a pooled inflater
// (Identity: src as it is). It reads the coding's header first: a body
// that does not start like one is ErrMalformed, an error of src's is
// returned as it is. A Read of a stream cut short (no gzip trailer) is
// io.ErrUnexpectedEOF, of a corrupt one an error of the decoder's.
func NewReader(enc Encoding, src io.Reader) (*Reader, error) {
	if enc != Gzip && enc != Deflate {
		return &Reader{r: src}, nil
	}
	f := inflaters.Get().(*inflater)
	f.in = source{r: src}
	if f.buf == nil {
		f.buf = bufio.NewReaderSize(&f.in, 4<<10)
	} else {
		f.buf.Reset(&f.in)
	}
	head, _ := f.buf.Peek(2)
	r, err := f.decoder(enc, f.buf, head)
	if err != nil {
		if f.in.err != nil {
			err = f.in.err
		}
		f.release()
		return nil, err
	}
	return &Reader{f: f, r: r}, nil
}

// Read reads inflated bytes.
func (r *Reader) Read(p []byte) (int, error) { return r.r.Read(p) }

// Release gives the Reader's inflater back to the pool; r must not be
// used after.
func (r *Reader) Release() {
	if r.f != nil {
		r.f.release()
		r.f, r.r = nil, nil
	}
}

// release drops what f read from and pools it.
func (f *inflater) release() {
	f.in = source{}
	f.buf.Reset(nil)
	inflaters.Put(f)
}

// isZlib reports whether head starts with a zlib header (RFC 1950: CM 8,
// the check bits right, no preset dictionary).
func isZlib(head []byte) bool {
	if len(head) < 2 {
		return false
	}
	cmf, flg := head[0], head[1]
	return cmf&0x0f == 8 && cmf>>4 <= 7 && (uint(cmf)<<8|uint(flg))%31 == 0 && flg&0x20 == 0
}

// readLimited appends what r yields onto dst, up to its end, and fails with
// ErrTooLarge past limit bytes, or r's error.
func readLimited(dst []byte, r io.Reader, limit int) ([]byte, error) {
	start := len(dst)
	for {
		if len(dst) == cap(dst) {
			room := min(max(cap(dst)-start, 512), limit+1-(len(dst)-start))
			if room <= 0 {
				return dst, ErrTooLarge
			}
			dst = slices.Grow(dst, room)
		}
		// Read at most limit+1 bytes in all.
		end := min(cap(dst), start+limit+1)
		if end == len(dst) {
			return dst, ErrTooLarge
		}
		n, err := r.Read(dst[len(dst):end])
		dst = dst[:len(dst)+n]
		if len(dst)-start > limit {
			return dst, ErrTooLarge
		}
		switch {
		case err == io.EOF:
			return dst, nil
		case err != nil:
			return dst, err
		}
	}
}
