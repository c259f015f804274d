package ws

import (
	"encoding/binary"
	"io"
	"math"
	"math/bits"
)

// NOTE: how the Reader is organised.
//
// All input lives in one buffer: buf[r:w] is read and not yet handed out.
// step (no I/O) cuts frames out of buf[r:w] until it has something to hand
// out (a whole message or a control frame), checking each header as soon
// as it is buffered, before its payload; when it needs more bytes it says
// how many from r, and fill makes room (reset when empty, compact when the
// tail is short, grow up to the limit plus a header) and reads once. A
// message in fragments is joined in frag; every other payload is handed out
// in place. Ready runs step and keeps what it found for Next.
//
// The payload of the frame at r is unmasked and, in a text message, checked
// as UTF-8 as its bytes come (advance), so that a bad byte fails the
// message before the rest of it is read: done counts the bytes of that
// payload already seen, and text is where the UTF-8 check of the text
// message stands (utf8.go).

const (
	// DefaultMaxMessage is the message limit used when 0 is given.
	DefaultMaxMessage = 4 << 20

	initialSize   = 4 << 10  // first buffer
	maxKept       = 64 << 10 // a larger buffer is dropped once empty
	minRead       = 512      // compact rather than read into a shorter tail
	maxMaxMessage = math.MaxInt / 4
	maxEmptyReads = 100
)

// Role says which end of the connection a Reader serves: it decides the
// masking rule.
type Role uint8

const (
	// Client reads a server's frames, which must not be masked.
	Client Role = iota
	// Server reads a client's frames, which must be masked; the Reader
	// unmasks them in place.
	Server
)

// noCopy makes go vet's copylocks check flag copies of a Reader.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// Reader hands out the messages and control frames read from an io.Reader.
//
// The zero value is not ready for use: call Reset. A Reader is not safe
// for concurrent use.
type Reader struct {
	noCopy noCopy

	src    io.Reader
	role   Role
	max    int
	buf    []byte // len(buf) == cap(buf)
	r, w   int
	rerr   error  // a read error that came with bytes, for the next fill
	err    error  // sticky: a broken rule or a close frame handed out
	frag   []byte // the fragments of a message so far
	fragOp Opcode
	inFrag bool
	done   int       // payload bytes of the frame at r unmasked and checked
	text   utf8State // the UTF-8 check of a text message
	dfl    inflater  // permessage-deflate (deflate.go)

	divert  func(head []byte) Sink // divert.go
	sink    Sink                   // the message being diverted (nil: none)
	head    []byte                 // the head shown to divert
	passing bool                   // the payload of a frame is being passed to sink
	passFin bool                   // that frame ends the message
	left    uint64                 // that frame's payload bytes still to come
	sunk    int                    // the message's bytes passed so far

	held    bool // what Ready found, for Next
	heldOp  Opcode
	heldMsg []byte
}

// Reset makes rd read frames from src as role, keeping rd's buffers. A
// message (its fragments joined) over maxMessage bytes is an error; 0 means
// DefaultMaxMessage.
func (rd *Reader) Reset(src io.Reader, role Role, maxMessage int) {
	if maxMessage <= 0 {
		maxMessage = DefaultMaxMessage
	}
	rd.dropSink()
	*rd = Reader{src: src, role: role, max: min(maxMessage, maxMaxMessage), buf: rd.buf, frag: rd.frag[:0],
		dfl: inflater{out: rd.dfl.out[:0], hist: rd.dfl.hist[:0]}, divert: rd.divert, head: rd.head[:0]}
}

// Ready reports whether the next call to Next will return without reading
// from the source: a message, a control frame or an error is buffered.
func (rd *Reader) Ready() bool {
	if rd.held {
		return true
	}
	op, msg, want, err := rd.step()
	switch {
	case want > 0:
		return false
	case err == nil:
		rd.held, rd.heldOp, rd.heldMsg = true, op, msg
	}
	return true
}

// Next returns the next message or control frame: op is OpText or OpBinary
// for a whole message (its fragments joined), OpPing, OpPong or OpClose for
// a control frame, which may come between the fragments of a message. A
// close frame's payload is checked (see ParseClose); after it Next returns
// ErrClosed.
//
// payload is a slice of the Reader's buffers, unmasked: it is valid until
// the next call to Next or Ready.
//
// A text message must be valid UTF-8 (RFC 3629), checked as its bytes are
// read: a bad sequence is reported as soon as it is read, before the rest
// of the frame or message, as a *UTF8Error (ErrInvalidUTF8). A character
// may be cut between frames or reads; cut at the end of the message it is
// an error too. Binary messages are not checked.
//
// Errors: io.EOF when the source ends between messages, io.ErrUnexpectedEOF
// within one; other errors of the source as they come (after a timeout,
// Next may be called again). A broken rule (an error wrapping ErrProtocol,
// a *TooLargeError or a *UTF8Error) is returned by every later call.
func (rd *Reader) Next() (op Opcode, payload []byte, err error) {
	if rd.held {
		op, payload = rd.heldOp, rd.heldMsg
		rd.held, rd.heldMsg = false, nil
		if op == OpClose {
			rd.dropSink()
		}
		return op, payload, nil
	}
	for {
		op, payload, want, err := rd.step()
		if want == 0 {
			if err != nil || op == OpClose {
				rd.dropSink()
			}
			return op, payload, err
		}
		if err := rd.fill(want); err != nil {
			rd.dropSink()
			return 0, nil, rd.end(err)
		}
	}
}

// step cuts frames out of buf[r:w] until it has something to hand out;
// want > 0 is the number of bytes from r it needs buffered to go on.
func (rd *Reader) step() (op Opcode, payload []byte, want int, err error) {
	for rd.err == nil {
		if rd.passing { // a frame of a diverted message (divert.go)
			if want := rd.pass(); want > 0 {
				return 0, nil, want, nil
			}
			continue
		}
		b := rd.buf[rd.r:rd.w]
		hdr, n := frameHeader(b)
		if len(b) < hdr {
			return 0, nil, hdr, nil
		}
		if rd.err = rd.check(b[0], b[1], n); rd.err != nil {
			if _, ok := rd.err.(*TooLargeError); ok {
				if want, ok := rd.tryDivert(b, hdr, n); want > 0 || ok {
					rd.err = nil
					if want > 0 {
						return 0, nil, want, nil
					}
					continue
				}
			}
			break
		}
		if rd.sink != nil && !Opcode(b[0]&0x0f).IsControl() {
			rd.passFrame(b[0], hdr, n) // the next fragment of a diverted message
			continue
		}
		end := hdr + int(n)
		if rd.err = rd.advance(b[:min(len(b), end)], hdr, len(b) >= end); rd.err != nil {
			break
		}
		if len(b) < end {
			return 0, nil, end, nil
		}
		payload = b[hdr:end:end]
		rd.r, rd.done = rd.r+end, 0
		if op, payload, ok := rd.take(b[0], payload); ok {
			return op, payload, 0, nil
		}
	}
	return 0, nil, 0, rd.err
}

// frameHeader returns the length of the header that begins b (the bytes
// step needs to go on, when b is shorter) and, when b holds it, the length
// of the payload.
func frameHeader(b []byte) (hdr int, n uint64) {
	if len(b) < 2 {
		return 2, 0
	}
	hdr = 2
	switch b[1] & 0x7f {
	case 126:
		hdr = 4
	case 127:
		hdr = 10
	}
	if b[1]&maskBit != 0 {
		hdr += 4
	}
	if len(b) < hdr {
		return hdr, 0
	}
	switch n = uint64(b[1] & 0x7f); n {
	case 126:
		n = uint64(binary.BigEndian.Uint16(b[2:]))
	case 127:
		n = binary.BigEndian.Uint64(b[2:])
	}
	return hdr, n
}

// check applies the rules to a frame's header: first byte b0, second b1,
// payload length n.
func (rd *Reader) check(b0, b1 byte, n uint64) error {
	op, fin := Opcode(b0&0x0f), b0&finBit != 0
	if rsv := b0 & rsvBits; rsv != 0 {
		switch {
		case rsv != rsv1 || !rd.dfl.on:
			return ErrReserved
		case op.IsControl():
			return ErrCompressedControl
		case op == OpContinuation:
			return ErrCompressedContinuation
		}
	}
	switch {
	case rd.role == Server && b1&maskBit == 0:
		return ErrUnmasked
	case rd.role == Client && b1&maskBit != 0:
		return ErrMasked
	case n > math.MaxInt64:
		return ErrLength
	case op.IsControl():
		return checkControl(op, fin, n)
	case op > OpBinary:
		return ErrOpcode
	case (op == OpContinuation) != rd.inFrag:
		return ErrFragment
	case rd.sink == nil && (n > uint64(rd.max) || uint64(len(rd.frag))+n > uint64(rd.max) && rd.inFrag):
		return &TooLargeError{Limit: rd.max}
	}
	return nil
}

func checkControl(op Opcode, fin bool, n uint64) error {
	switch {
	case op > OpPong:
		return ErrOpcode
	case !fin || n > MaxControlPayload:
		return ErrControl
	}
	return nil
}

// advance unmasks the payload bytes of the frame at r that f (the frame
// so far, its header hdr bytes long) holds beyond done and, in a text
// message, checks them as UTF-8; whole says f is the whole frame, and then
// a final one must not end inside a character. ASCII takes no more than
// the high bits of the bytes, ORed while unmasking (or by orBytes when
// there is no mask); checkText does the rest.
func (rd *Reader) advance(f []byte, hdr int, whole bool) error {
	p, at := f[hdr+rd.done:], rd.done // at: the offset of p in the frame
	var or uint64
	if f[1]&maskBit != 0 {
		or = maskBytes(p, bits.RotateLeft32(binary.LittleEndian.Uint32(f[hdr-4:]), -8*(at&3)))
	}
	rd.done += len(p)
	op := Opcode(f[0] & 0x0f)
	if op != OpText && (op != OpContinuation || rd.fragOp != OpText) ||
		f[0]&rsv1 != 0 || op == OpContinuation && rd.dfl.comp {
		return nil // not text, or compressed: checked once inflated
	}
	if f[1]&maskBit == 0 {
		or = orBytes(p)
	}
	// rd.text needs no reset for a new message: the last one ended between
	// characters, or with an error that ends the reading.
	if or&msb == 0 && rd.text.need == 0 {
		return nil
	}
	if op == OpContinuation {
		at += len(rd.frag)
	}
	return rd.checkText(p, at, whole && f[0]&finBit != 0)
}

// checkText checks p, the next bytes of a text message from its offset at;
// final says the message ends with p.
func (rd *Reader) checkText(p []byte, at int, final bool) error {
	if bad, ok := rd.text.check(p); !ok {
		return &UTF8Error{Offset: at + bad}
	}
	if final && rd.text.need > 0 {
		return &UTF8Error{Offset: at + len(p) - int(rd.text.have)}
	}
	return nil
}

// take deals with a frame whose header passed check: b0 is its first
// byte, payload unmasked. ok says whether it has something to hand out.
func (rd *Reader) take(b0 byte, payload []byte) (op Opcode, msg []byte, ok bool) {
	op, fin := Opcode(b0&0x0f), b0&finBit != 0
	switch {
	case op == OpClose:
		if rd.err = checkClose(payload); rd.err != nil {
			return 0, nil, false
		}
		rd.err = ErrClosed // handed out now; nothing may follow
		return op, payload, true
	case op.IsControl():
		return op, payload, true
	case op != OpContinuation && fin:
		if b0&rsv1 != 0 {
			return rd.inflated(op, payload)
		}
		return op, payload, true
	case op != OpContinuation: // the first fragment
		if cap(rd.frag) > maxKept {
			rd.frag = nil
		}
		rd.frag, rd.fragOp, rd.inFrag = append(rd.frag[:0], payload...), op, true
		rd.dfl.comp = b0&rsv1 != 0
		return 0, nil, false
	}
	rd.frag = append(rd.frag, payload...)
	if !fin {
		return 0, nil, false
	}
	rd.inFrag = false
	if rd.dfl.comp {
		rd.dfl.comp = false
		return rd.inflated(rd.fragOp, rd.frag)
	}
	return rd.fragOp, rd.frag, true
}

// inflated is take's answer for the compressed message p.
func (rd *Reader) inflated(op Opcode, p []byte) (Opcode, []byte, bool) {
	msg, err := rd.inflate(op, p)
	if err != nil {
		rd.err = err
		return 0, nil, false
	}
	return op, msg, true
}
