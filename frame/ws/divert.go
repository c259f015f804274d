package ws

// NOTE: diverting a message over the limit (SetDivert). When a data frame
// would take its message over the limit, check's *TooLargeError is not
// final yet: with a divert set, a frame that is neither masked nor
// compressed waits until the message's first bytes are buffered (the
// fragments joined so far and up to headWant of this frame), and divert
// gets them. A Sink it returns takes the message from there on: the joined
// fragments, then each frame's payload as its bytes arrive (pass), the
// frame's header consumed first, so that nothing of the message is ever
// held whole. Control frames between fragments are handed out by Next as
// always. A text message is checked as UTF-8 on the way, as any other.

// Sink takes a message too large to be handed out whole, as it is read
// (Reader.SetDivert). Its methods are those of frame.LineSink.
type Sink interface {
	// Write takes the next bytes of the message's payload; p is valid
	// only during the call.
	Write(p []byte)
	// End ends the message: complete when its last frame came, false when
	// the connection ended or failed first (or a close frame came).
	End(complete bool)
}

const (
	// headWant is how many of a message's first bytes divert is shown.
	headWant = 256
	// passRead is the most a diverted frame asks the buffer to hold.
	passRead = maxKept
)

// SetDivert makes rd offer each message that goes over the limit to
// divert before failing: divert gets the message's first bytes (up to 256;
// valid only during the call) and returns a Sink that takes the whole
// message, or nil to fail with the *TooLargeError as without a divert.
// Only a message rd reads unmasked (as a Client) and uncompressed can be
// diverted; Next returns nothing for it, only the control frames around
// it. Sink's methods run on the goroutine that calls Next or Ready.
func (rd *Reader) SetDivert(divert func(head []byte) Sink) { rd.divert = divert }

// tryDivert offers the message of the frame at r (header hdr bytes, its
// payload n bytes, b what is buffered from r) to the divert. want > 0 is
// the bytes from r to buffer first; ok says it was taken.
func (rd *Reader) tryDivert(b []byte, hdr int, n uint64) (want int, ok bool) {
	if rd.divert == nil || b[1]&maskBit != 0 || b[0]&rsv1 != 0 || rd.inFrag && rd.dfl.comp {
		return 0, false
	}
	k := min(len(rd.frag), headWant)
	need := int(min(uint64(headWant-k), n))
	if len(b) < hdr+need {
		return hdr + need, false
	}
	rd.head = append(append(rd.head[:0], rd.frag[:k]...), b[hdr:hdr+need]...)
	s := rd.divert(rd.head)
	if s == nil {
		return 0, false
	}
	rd.sink, rd.sunk = s, len(rd.frag)
	if len(rd.frag) > 0 {
		s.Write(rd.frag) // checked as it came
		rd.frag = rd.frag[:0]
	}
	if !rd.inFrag {
		rd.inFrag, rd.fragOp = true, Opcode(b[0]&0x0f)
	}
	rd.passFrame(b[0], hdr, n)
	return 0, true
}

// passFrame starts passing the payload of the frame at r (first byte b0,
// header hdr bytes, payload n bytes) to the sink.
func (rd *Reader) passFrame(b0 byte, hdr int, n uint64) {
	rd.r += hdr
	rd.passing, rd.left, rd.passFin = true, n, b0&finBit != 0
}

// pass hands the sink the buffered bytes of the frame being passed; want
// > 0 is the bytes from r to buffer to go on.
func (rd *Reader) pass() (want int) {
	if rd.left > 0 {
		p := rd.buf[rd.r:rd.w]
		if uint64(len(p)) > rd.left {
			p = p[:rd.left]
		}
		if len(p) == 0 {
			return int(min(rd.left, passRead))
		}
		if rd.fragOp == OpText {
			if rd.err = rd.checkText(p, rd.sunk, false); rd.err != nil {
				return 0
			}
		}
		rd.sink.Write(p)
		rd.r += len(p)
		rd.sunk += len(p)
		rd.left -= uint64(len(p))
		if rd.left > 0 {
			return int(min(rd.left, passRead))
		}
	}
	rd.passing = false
	if !rd.passFin {
		return 0
	}
	if rd.fragOp == OpText {
		if rd.err = rd.checkText(nil, rd.sunk, true); rd.err != nil {
			return 0
		}
	}
	s := rd.sink
	rd.sink, rd.inFrag = nil, false
	s.End(true)
	return 0
}

// dropSink ends a diverted message that will not complete.
func (rd *Reader) dropSink() {
	if s := rd.sink; s != nil {
		rd.sink, rd.passing = nil, false
		s.End(false)
	}
}
