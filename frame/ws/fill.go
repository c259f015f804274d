package ws

import "io"

// fill makes room for want bytes from r and reads once. It returns a read
// error only when no bytes came with it; otherwise the error is kept for
// the next call.
func (rd *Reader) fill(want int) error {
	if err := rd.rerr; err != nil {
		rd.rerr = nil
		return err
	}
	rd.makeRoom(want)
	for range maxEmptyReads {
		n, err := rd.src.Read(rd.buf[rd.w:])
		if n < 0 || n > len(rd.buf)-rd.w {
			panic("ws: reader returned an invalid count")
		}
		rd.w += n
		if n > 0 {
			rd.rerr = err
			return nil
		}
		if err != nil {
			return err
		}
	}
	return io.ErrNoProgress
}

// makeRoom ensures len(buf)-r >= want with at least one free byte after w,
// preferring a tail of minRead bytes for the read. A buffer over maxKept
// is dropped once empty, unless want needs it.
func (rd *Reader) makeRoom(want int) {
	if rd.r == rd.w {
		rd.r, rd.w = 0, 0
		if len(rd.buf) > maxKept && want <= initialSize {
			rd.buf = nil
		}
	}
	if rd.buf == nil {
		rd.buf = make([]byte, max(min(initialSize, rd.max+MaxHeaderLen), want))
	}
	need := max(want, min(rd.w-rd.r+minRead, len(rd.buf)))
	switch {
	case rd.r+need <= len(rd.buf):
	case need <= len(rd.buf):
		rd.w = copy(rd.buf, rd.buf[rd.r:rd.w])
		rd.r = 0
	default:
		buf := make([]byte, max(need, min(2*len(rd.buf), rd.max+MaxHeaderLen)))
		rd.w = copy(buf, rd.buf[rd.r:rd.w])
		rd.r, rd.buf = 0, buf
	}
}

// end turns a read error into Next's: at io.EOF, a clean end between
// messages or a truncated one.
func (rd *Reader) end(err error) error {
	if err == io.EOF && (rd.r < rd.w || rd.inFrag) {
		return io.ErrUnexpectedEOF
	}
	return err
}
