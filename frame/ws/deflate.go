package ws

// NOTE: permessage-deflate's data (RFC 7692 section 7.2).
//
// Sending: a message is deflated and sync-flushed, which ends it with an
// empty stored block, 0x00 0x00 0xff 0xff; the four bytes are cut and the
// first frame says RSV1. Without context takeover every message starts
// from an empty window, so the flate writers (about 800 KiB each at
// BestSpeed) come from a pool, one per window size, and a connection
// holds none between messages; with takeover a Compressor keeps its own.
//
// Receiving (Reader.inflate): the compressed payload is copied into the
// Reader's frag buffer followed by the four bytes and an empty final block,
// so that a pooled flate reader (klauspost/compress, whose reader over a
// *bytes.Reader takes its fastest path) ends with io.EOF on a well-formed
// message. The inflated message goes to its own buffer, held to the message
// limit. With the peer's context takeover the Reader keeps the last window
// of what it inflated (up to 32 KiB) and hands it to the flate reader as its
// dictionary; without, it keeps nothing.

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
)

// CompressLevel is the flate level messages are compressed at with a full
// (32 KiB) window: BestSpeed. On log-like JSON (eth_getLogs results) it
// compresses 8.3 times where level 6 does 9.0 and level 9 9.5, at a quarter
// of level 6's time and 3/4 of its memory. Smaller windows use
// klauspost/compress's window-limited encoder.
const CompressLevel = flate.BestSpeed

// ErrInflate is what the Reader returns (test with errors.Is) for a
// compressed message that does not inflate: not a valid DEFLATE stream.
// The caller answers it with close 1007 (CloseInvalidData), as for data
// that does not fit the message's type (RFC 6455 section 7.4.1).
var ErrInflate = errors.New("ws: invalid compressed data")

// The protocol errors of permessage-deflate (RFC 7692 section 6).
var (
	// ErrCompressedControl is a control frame with RSV1 set.
	ErrCompressedControl error = protocolError("RSV1 set on a control frame")
	// ErrCompressedContinuation is a continuation frame with RSV1 set: only
	// a message's first frame says it is compressed.
	ErrCompressedContinuation error = protocolError("RSV1 set on a continuation frame")
)

// rsv1 is the bit that marks a compressed message's first frame.
const rsv1 = 0x40

// deflateTail is what a sender cut from a message (section 7.2.1), followed
// by an empty final stored block that ends the stream for the reader.
var deflateTail = [...]byte{0x00, 0x00, 0xff, 0xff, 0x01, 0x00, 0x00, 0xff, 0xff}

// maxKeptScratch is the largest compression buffer a pool keeps.
const maxKeptScratch = 256 << 10

// deflater is a flate writer and the buffer it writes to.
type deflater struct {
	fw  *flate.Writer
	out sliceWriter
}

// sliceWriter appends what is written to b.
type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// deflaters are pools of deflaters, by window bits (8 to 15).
var deflaters [16]sync.Pool

func newDeflater(bits int) *deflater {
	d := new(deflater)
	var err error
	if bits == 15 {
		d.fw, err = flate.NewWriter(&d.out, CompressLevel)
	} else {
		d.fw, err = flate.NewWriterWindow(&d.out, 1<<bits)
	}
	if err != nil {
		panic("ws: " + err.Error()) // unreachable: the level and the sizes are valid
	}
	return d
}

func getDeflater(bits int) *deflater {
	if d, ok := deflaters[bits].Get().(*deflater); ok {
		d.fw.Reset(&d.out)
		return d
	}
	return newDeflater(bits)
}

func putDeflater(bits int, d *deflater) {
	if cap(d.out.b) > maxKeptScratch {
		d.out.b = nil
	}
	deflaters[bits].Put(d)
}

// deflate compresses msg after what came before (with a fresh writer,
// nothing) into d.out.b, the tail cut.
func (d *deflater) deflate(msg []byte) []byte {
	d.out.b = d.out.b[:0]
	d.fw.Write(msg) // a sliceWriter never fails
	d.fw.Flush()
	b := d.out.b
	if n := len(b) - 4; n >= 0 && string(b[n:]) == "\x00\x00\xff\xff" {
		b = b[:n]
	}
	return b
}

// Compressor compresses the messages one end of a connection sends, as
// the permessage-deflate agreement says: messages of at least Min bytes,
// with the window the agreement allows, and, when the peer keeps context
// (Takeover), each message after the last one.
//
// Without Takeover a Compressor holds no state between messages (it takes
// a flate writer from a pool for each) and is safe for concurrent use:
// calls may come in any order. With Takeover the messages must be
// compressed one at a time in the order they are sent, and the Compressor
// holds a flate writer (about 800 KiB) until Release.
//
// A nil *Compressor compresses nothing.
type Compressor struct {
	noCopy noCopy

	min  int
	bits int
	own  *deflater // with takeover
	take bool
}

// Reset makes c compress what role sends under the agreement d: messages
// of at least min bytes (negative: none), with context takeover unless the
// agreement or noTakeover rule it out. A sender may always drop context
// (RFC 7692 section 7.1.1), so noTakeover is the sender's own choice.
func (c *Compressor) Reset(d Deflate, role Role, min int, noTakeover bool) {
	c.Release()
	bits, off := d.ServerMaxWindowBits, d.ServerNoContextTakeover
	if role == Client {
		bits, off = d.ClientMaxWindowBits, d.ClientNoContextTakeover
	}
	c.min, c.bits, c.take = min, windowBits(bits), !off && !noTakeover
	if min < 0 {
		c.min = -1
	}
}

// Release gives back the flate writer a Compressor with takeover holds
// and turns compression off: call it when the connection ends.
func (c *Compressor) Release() {
	if c.own != nil {
		putDeflater(c.bits, c.own)
		c.own = nil
	}
	c.min = -1
}

// EndFrame completes a final frame of opcode op masked as m whose payload,
// the message, is b[start:], with b[mark:start] reserved for the header (at
// least 2 bytes): it writes the header at b[mark], compressing the message
// first when it has at least c.min bytes and compression makes it smaller
// (or c keeps context, which then includes it), and returns b cut after the
// frame. A nil c never compresses.
func (c *Compressor) EndFrame(b []byte, mark, start int, op Opcode, m Mask) []byte {
	msg := b[start:]
	if c != nil && c.min >= 0 && len(msg) >= c.min {
		if c.take {
			if c.own == nil {
				c.own = newDeflater(c.bits)
			}
			return putCompressed(b[:mark], op, c.own.deflate(msg), m)
		}
		d := getDeflater(c.bits)
		if z := d.deflate(msg); len(z) < len(msg) {
			b = putCompressed(b[:mark], op, z, m)
			putDeflater(c.bits, d)
			return b
		}
		putDeflater(c.bits, d)
	}
	return moveUp(b, mark, start, op, m)
}

// putCompressed appends the frame of the compressed message z to b.
func putCompressed(b []byte, op Opcode, z []byte, m Mask) []byte {
	at := len(b)
	b = AppendHeader(b, op, true, len(z), m)
	b[at] |= rsv1
	p := len(b)
	b = append(b, z...)
	m.Apply(b[p:])
	return b
}

// moveUp writes the header of the uncompressed message b[start:] at
// b[mark], moving the message against it.
func moveUp(b []byte, mark, start int, op Opcode, m Mask) []byte {
	n := len(b) - start
	var tmp [MaxHeaderLen]byte
	h := AppendHeader(tmp[:0], op, true, n, m)
	p := mark + len(h)
	switch {
	case p > start: // a longer header than the room: move the payload up
		b = append(b, make([]byte, p-start)...)
		copy(b[p:], b[start:start+n])
	case p < start:
		copy(b[p:], b[start:])
	}
	copy(b[mark:], h)
	b = b[:p+n]
	m.Apply(b[p:])
	return b
}

// AppendMessage appends msg to dst as one final frame of opcode op masked
// as m, compressed as c says (see EndFrame). msg must not share memory
// with dst's spare capacity.
func (c *Compressor) AppendMessage(dst []byte, op Opcode, msg []byte, m Mask) []byte {
	mark := len(dst)
	dst = append(dst, 0, 0)
	return c.EndFrame(append(dst, msg...), mark, mark+2, op, m)
}

// inflater is a Reader's side of permessage-deflate.
type inflater struct {
	on     bool
	take   bool   // the peer keeps context: hist is its window
	window int    // bytes of the peer's window
	hist   []byte // the last window bytes inflated (take)
	out    []byte // the inflated message
	comp   bool   // the message being read is compressed
	src    bytes.Reader
}

// flateReader is what flate.NewReader returns.
type flateReader interface {
	io.Reader
	flate.Resetter
}

var inflaters sync.Pool // of flateReader

func getInflater(src io.Reader, dict []byte) flateReader {
	if f, ok := inflaters.Get().(flateReader); ok {
		f.Reset(src, dict)
		return f
	}
	return flate.NewReaderDict(src, dict).(flateReader)
}

// SetDeflate makes rd read messages compressed under the agreement d
// (RSV1 on a message's first frame), in the role given to Reset. Call it
// after Reset, before reading; Reset turns it off.
func (rd *Reader) SetDeflate(d Deflate) {
	bits, off := d.ClientMaxWindowBits, d.ClientNoContextTakeover
	if rd.role == Client {
		bits, off = d.ServerMaxWindowBits, d.ServerNoContextTakeover
	}
	f := &rd.dfl
	f.on, f.take, f.window = true, !off, 1<<windowBits(bits)
	f.hist = f.hist[:0]
}

// inflate inflates the compressed message p (held in frag or buf) into
// rd.dfl.out, held to the message limit, and checks it as UTF-8 when it is
// text.
func (rd *Reader) inflate(op Opcode, p []byte) ([]byte, error) {
	f := &rd.dfl
	rd.frag = append(append(rd.frag[:0], p...), deflateTail[:]...)
	f.src.Reset(rd.frag)
	if cap(f.out) > maxKeptScratch {
		f.out = nil
	}
	var dict []byte
	if f.take {
		dict = f.hist
	}
	fr := getInflater(&f.src, dict)
	out, err := readLimited(fr, f.out[:0], rd.max, len(p))
	inflaters.Put(fr)
	f.src.Reset(nil)
	f.out = out
	if err != nil {
		return nil, err
	}
	if f.take {
		f.keep(out)
	}
	if op == OpText {
		var st utf8State
		if bad, ok := st.check(out); !ok {
			return nil, &UTF8Error{Offset: bad}
		} else if st.need > 0 {
			return nil, &UTF8Error{Offset: len(out) - int(st.have)}
		}
	}
	return out, nil
}

// readLimited reads r to its end into out, at most limit bytes (a
// *TooLargeError beyond), guessing the size from n compressed bytes.
func readLimited(r io.Reader, out []byte, limit, n int) ([]byte, error) {
	if cap(out) == 0 {
		out = make([]byte, 0, min(max(4*n, initialSize), limit+1))
	}
	for {
		if len(out) == cap(out) {
			if len(out) > limit {
				return out[:0], &TooLargeError{Limit: limit}
			}
			grown := make([]byte, len(out), min(2*cap(out), limit+1))
			copy(grown, out)
			out = grown
		}
		k, err := r.Read(out[len(out):cap(out)])
		out = out[:len(out)+k]
		switch {
		case len(out) > limit:
			return out[:0], &TooLargeError{Limit: limit}
		case err == io.EOF:
			return out, nil
		case err != nil:
			return out[:0], ErrInflate
		}
	}
}

// keep makes hist the last window bytes of hist followed by out.
func (f *inflater) keep(out []byte) {
	if cap(f.hist) < f.window {
		f.hist = make([]byte, 0, f.window)
	}
	if len(out) >= f.window {
		f.hist = append(f.hist[:0], out[len(out)-f.window:]...)
		return
	}
	if drop := len(f.hist) + len(out) - f.window; drop > 0 {
		f.hist = append(f.hist[:0], f.hist[drop:]...)
	}
	f.hist = append(f.hist, out...)
}
