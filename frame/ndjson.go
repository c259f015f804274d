package frame

import (
	"bytes"
	"io"
)

// stepLine cuts the next non-blank line. A line longer than max+1 bytes
// without its '\n' cannot be a frame within the limit (one '\r' may still be
// stripped), so it is reported then and its rest discarded lazily.
func (r *Reader) stepLine() (frame []byte, want int, err error) {
	for {
		if r.skipLine {
			i := bytes.IndexByte(r.buf[r.r:r.w], '\n')
			if i < 0 {
				if r.sink != nil { // a diverted line (divert.go)
					r.diverted(r.buf[r.r:r.w], false)
				}
				r.r = r.w
				return nil, 1, nil
			}
			if r.sink != nil {
				r.diverted(r.buf[r.r:r.r+i], true)
			}
			r.r += i + 1
			r.skipLine = false
		}
		i := bytes.IndexByte(r.buf[r.r+r.scan:r.w], '\n')
		if i < 0 {
			n := r.w - r.r
			if n > r.max+1 {
				if r.divert != nil {
					if r.sink = r.divert(r.buf[r.r:r.w]); r.sink != nil {
						r.sink.Write(r.buf[r.r:r.w])
						r.r, r.scan, r.skipLine = r.w, 0, true
						return nil, 1, nil
					}
				}
				r.r, r.scan, r.skipLine = r.w, 0, true
				return nil, 0, r.tooLarge(int64(n))
			}
			r.scan = n
			return nil, n + 1, nil
		}
		end := r.r + r.scan + i
		line := r.buf[r.r:end:end]
		r.r, r.scan = end+1, 0
		if frame, ok, err := r.line(line); ok {
			return frame, 0, err
		}
	}
}

// line checks a line without its '\n': ok is false for a blank line.
func (r *Reader) line(line []byte) (frame []byte, ok bool, err error) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[: n-1 : n-1]
	}
	if len(line) > r.max {
		return nil, true, r.tooLarge(int64(len(line)))
	}
	if len(line) == 0 || isSpace(line[0]) && blank(line) {
		return nil, false, nil
	}
	return line, true, nil
}

// lastLine handles io.EOF: an unterminated last line is a frame.
func (r *Reader) lastLine() ([]byte, error) {
	r.endSink()
	if r.skipLine {
		r.skipLine = false
		r.r = r.w
	}
	if r.r < r.w {
		line := r.buf[r.r:r.w:r.w]
		r.r, r.scan = r.w, 0
		if frame, ok, err := r.line(line); ok {
			return frame, err
		}
	}
	return nil, io.EOF
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

func blank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
