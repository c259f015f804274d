package frame

import (
	"io"
	"math"
)

// NOTE: how the Reader is organised.
//
// All input lives in one buffer: buf[r:w] is read but not yet handed out.
// step (no I/O) tries to cut the next frame out of buf[r:w]; when it needs
// more bytes it says how many it wants in total from r, and fill makes room
// (reset when empty, compact when the tail is short, grow up to limit) and
// reads once. The per-framing steps live in ndjson.go and prefixed.go and keep
// their progress in a few fields (scan, body, skip, skipLine, clen), so a
// frame that arrives in many reads is never rescanned from its start.

const (
	// DefaultMaxMessage is the message limit used when 0 is given.
	DefaultMaxMessage = 4 << 20

	// MaxHeaderBlock is the largest header block (Header framing, all
	// lines and the blank line) the Reader accepts.
	MaxHeaderBlock = 8 << 10

	// initialSize is the first buffer: 512 bytes hold a few small messages,
	// so that the thousands of connections a server may have do not each
	// hold more. A read that fills the buffer doubles it for the next (up to
	// growReads), so a stream of pipelined messages soon reads many at once.
	initialSize = 512
	growReads   = 64 << 10
	minRead     = 512 // compact rather than read into a shorter tail
	// headerMargin is what the buffer may hold beyond the message limit.
	headerMargin = MaxHeaderBlock + minRead

	maxMaxMessage = math.MaxInt / 4
	maxEmptyReads = 100
)

// noCopy makes go vet's copylocks check flag copies of a Reader.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// Reader hands out whole frames read from an io.Reader.
//
// The zero value is not ready for use: call Reset (or use NewReader). A Reader
// must not be copied and is not safe for concurrent use.
type Reader struct {
	noCopy noCopy

	rd    io.Reader
	buf   []byte // len(buf) == cap(buf); buf[r:w] is unread input
	r, w  int
	kind  Kind // in use; Auto until the first byte is seen
	max   int  // message limit
	limit int  // bound on len(buf)

	// progress of the frame in hand
	scan     int   // NDJSON, Header: bytes after r already scanned
	body     int   // Header, Len32: length of the body awaited, -1 if none
	skip     int64 // Header, Len32: bytes of an oversized frame left to discard
	skipLine bool  // NDJSON: discarding an oversized line up to its '\n'
	clen     int64 // Header: Content-Length of the block being read, -1 if none

	// a line over max handed to a sink (divert.go)
	divert func(head []byte) LineSink
	sink   LineSink

	// a result found by Ready and not yet returned by Next
	pending     bool
	pendFrame   []byte
	pendErr     error
	pendFrom    int // r before that result was cut
	rerr        error
	err         error // sticky: broken framing
	tooLargeErr TooLargeError
	full        bool // the last read filled the buffer: grow it for the next
	first       int  // size of the first buffer, when more than initialSize
}

// NewReader returns a Reader of frames of the given kind from rd. Frames over
// maxMessage bytes are skipped with a *TooLargeError; maxMessage <= 0 means
// DefaultMaxMessage. NewReader panics on an unknown kind.
func NewReader(rd io.Reader, kind Kind, maxMessage int) *Reader {
	r := new(Reader)
	r.Reset(rd, kind, maxMessage)
	return r
}

// Reset makes r read a new stream, as NewReader does, keeping r's buffer
// (unless it is larger than the new limit allows).
func (r *Reader) Reset(rd io.Reader, kind Kind, maxMessage int) {
	if kind > Len32 {
		panic("frame: unknown Kind " + kind.String())
	}
	if maxMessage <= 0 {
		maxMessage = DefaultMaxMessage
	}
	maxMessage = min(maxMessage, maxMaxMessage)
	limit := maxMessage + headerMargin
	r.endSink()
	buf := r.buf
	if len(buf) > limit {
		buf = nil
	}
	*r = Reader{rd: rd, buf: buf, kind: kind, max: maxMessage, limit: limit, body: -1, clen: -1}
}

// Kind returns the framing in use: the one given to NewReader, or, for Auto,
// the one detected, which is Auto until the first byte has been read.
func (r *Reader) Kind() Kind { return r.kind }

// MaxMessage returns the message limit in force.
func (r *Reader) MaxMessage() int { return r.max }

// Buffered returns the number of bytes read from the stream and not yet
// handed out. When it is 0, the next call to Next will read from the stream
// (and may block). Ready is the exact test: bytes may be buffered without a
// whole frame among them.
func (r *Reader) Buffered() int {
	if r.pending {
		return r.w - r.pendFrom
	}
	return r.w - r.r
}

// Idle reports whether the Reader is between frames with nothing buffered:
// no frame begun or being skipped and no error held, so that a fresh Reader
// of the same Kind would go on exactly as this one (a server pools its
// Reader while a connection is idle).
func (r *Reader) Idle() bool {
	return r.Buffered() == 0 && r.skip == 0 && !r.skipLine && r.body < 0 &&
		r.clen < 0 && r.rerr == nil && r.err == nil
}

// Ready reports whether the next call to Next will return without reading
// from the stream: a whole frame (or an error) is already buffered. A server
// uses it to decide when to flush its responses before it may block. Ready may
// do the work of cutting the frame; Next then hands it out.
func (r *Reader) Ready() bool {
	if r.pending {
		return true
	}
	from := r.r
	frame, want, err := r.step()
	if want != 0 {
		return r.rerr != nil
	}
	r.pending, r.pendFrame, r.pendErr, r.pendFrom = true, frame, err, from
	return true
}

// SetInitialSize makes the buffers r allocates when it has none (at first,
// after Release) at least n bytes; Reset forgets it. A Reader of one
// stream of large frames, or of a peer that writes a large frame in one
// synchronous write (an io.Pipe) and reads only once it is written, reads
// more of it at once.
func (r *Reader) SetInitialSize(n int) { r.first = n }

// Release drops the Reader's buffer, so that an idle stream holds no buffer
// memory; the next call to Next allocates a small one again. Release does
// nothing while bytes are buffered (Buffered() > 0).
func (r *Reader) Release() {
	if r.r == r.w && !r.pending {
		r.buf, r.r, r.w, r.scan, r.full = nil, 0, 0, 0, false
	}
}

// Next returns the next frame. The frame is a slice of the Reader's buffer,
// valid only until the next call to Next, Release or Reset (Ready keeps it
// valid); copy it (e.g. with bytes.Clone) to keep it. Its capacity is cut at
// its end, so appending to it never overwrites buffered input.
//
// Errors: io.EOF when the stream ends between frames; io.ErrUnexpectedEOF when
// it ends inside one; *TooLargeError for a frame over the limit (skipped; call
// Next again for the next frame); an error wrapping ErrBroken when the framing
// cannot be recovered (returned again by every later call); and any error of
// the underlying reader (Next may be called again, e.g. after a timeout).
//
// With NDJSON, a last line not ended by '\n' is handed out as a frame before
// io.EOF.
func (r *Reader) Next() ([]byte, error) {
	if r.pending {
		f, err := r.pendFrame, r.pendErr
		r.pending, r.pendFrame, r.pendErr = false, nil, nil
		return f, err
	}
	for {
		frame, want, err := r.step()
		if want == 0 {
			return frame, err
		}
		if err := r.fill(want); err != nil {
			return r.end(err)
		}
	}
}

// step cuts the next frame out of buf[r:w] without reading. It returns
// want == 0 with a frame or an error, or want > 0: the number of bytes it
// needs buffered from r to make progress.
func (r *Reader) step() (frame []byte, want int, err error) {
	if r.err != nil {
		return nil, 0, r.err
	}
	switch r.kind {
	case NDJSON:
		return r.stepLine()
	case Auto:
		if r.r == r.w {
			return nil, 1, nil
		}
		r.kind = detect(r.buf[r.r])
		return r.step()
	}
	return r.stepPrefixed()
}

// fill makes room for want bytes from r and reads once. It returns a read
// error only when no bytes came with it; otherwise the error is kept for the
// next call.
func (r *Reader) fill(want int) error {
	if err := r.rerr; err != nil {
		r.rerr = nil
		return err
	}
	r.makeRoom(want)
	for range maxEmptyReads {
		n, err := r.rd.Read(r.buf[r.w:])
		if n < 0 || n > len(r.buf)-r.w {
			panic("frame: reader returned an invalid count")
		}
		r.w += n
		if n > 0 {
			r.rerr = err
			r.full = r.w == len(r.buf) && len(r.buf) < growReads
			return nil
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}

// makeRoom ensures len(buf)-r >= want with at least one free byte after w,
// preferring a tail of minRead bytes for the read.
func (r *Reader) makeRoom(want int) {
	if r.r == r.w {
		r.r, r.w = 0, 0
	}
	if r.buf == nil {
		r.buf = make([]byte, min(max(initialSize, r.first), r.limit))
	}
	need := min(max(want, r.w-r.r+minRead), r.limit)
	if r.full { // more was waiting than the buffer took
		r.full = false
		need = min(max(need, 2*len(r.buf)), r.limit)
	}
	switch {
	case r.r+need <= len(r.buf):
	case need <= len(r.buf):
		r.w = copy(r.buf, r.buf[r.r:r.w])
		r.r = 0
	default:
		size := min(max(need, 2*len(r.buf)), r.limit)
		if size < want {
			panic("frame: internal error: frame larger than buffer limit")
		}
		buf := make([]byte, size)
		r.w = copy(buf, r.buf[r.r:r.w])
		r.r, r.buf = 0, buf
	}
}

// end turns a read error into Next's result. At io.EOF it decides between a
// clean end, a last unterminated NDJSON line and a truncated frame.
func (r *Reader) end(err error) ([]byte, error) {
	if err != io.EOF {
		r.endSink()
		return nil, err
	}
	switch r.kind {
	case NDJSON:
		return r.lastLine()
	case Auto:
		return nil, io.EOF
	}
	if r.r < r.w || r.body >= 0 || r.skip > 0 {
		return nil, io.ErrUnexpectedEOF
	}
	return nil, io.EOF
}

func (r *Reader) tooLarge(size int64) error {
	r.tooLargeErr = TooLargeError{Size: size, Limit: r.max}
	return &r.tooLargeErr
}

func (r *Reader) broken(reason string) error {
	r.err = &brokenError{reason}
	return r.err
}
