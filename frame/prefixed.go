package frame

import (
	"bytes"
	"encoding/binary"
	"math"
)

// stepPrefixed handles the framings that announce a length (Header, Len32):
// discard the rest of an oversized frame, read the prefix, then wait until the
// whole body is buffered.
func (r *Reader) stepPrefixed() (frame []byte, want int, err error) {
	if r.skip > 0 {
		n := min(r.skip, int64(r.w-r.r))
		r.r += int(n)
		r.skip -= n
		if r.skip > 0 {
			return nil, 1, nil
		}
	}
	if r.body < 0 {
		var n int64
		if r.kind == Len32 {
			if r.w-r.r < 4 {
				return nil, 4, nil
			}
			n = int64(binary.BigEndian.Uint32(r.buf[r.r:]))
			r.r += 4
		} else if n, want, err = r.stepHeader(); n < 0 {
			return nil, want, err
		}
		if n > int64(r.max) {
			r.skip = n
			return nil, 0, r.tooLarge(n)
		}
		r.body = int(n)
	}
	if r.w-r.r < r.body {
		return nil, r.body, nil
	}
	end := r.r + r.body
	frame = r.buf[r.r:end:end]
	r.r, r.body = end, -1
	return frame, 0, nil
}

// stepHeader reads a header block and returns its Content-Length, or n < 0
// with what step should return (more bytes wanted or a broken framing).
// Lines already checked are not scanned again; bare "\n" ends are accepted.
func (r *Reader) stepHeader() (n int64, want int, err error) {
	if r.scan == 0 {
		if n, ok := r.plainHeader(); ok {
			return n, 0, nil
		}
	}
	for {
		p := r.r + r.scan
		i := bytes.IndexByte(r.buf[p:r.w], '\n')
		if i < 0 {
			if r.w-r.r >= MaxHeaderBlock {
				return -1, 0, r.broken("header block larger than 8 KiB")
			}
			return -1, r.w - r.r + 1, nil
		}
		end := p + i + 1
		if end-r.r > MaxHeaderBlock {
			return -1, 0, r.broken("header block larger than 8 KiB")
		}
		line := r.buf[p : end-1]
		if k := len(line); k > 0 && line[k-1] == '\r' {
			line = line[:k-1]
		}
		if len(line) == 0 {
			if r.clen < 0 {
				return -1, 0, r.broken("missing Content-Length")
			}
			n, r.clen = r.clen, -1
			r.r, r.scan = end, 0
			return n, 0, nil
		}
		if reason := r.headerLine(line); reason != "" {
			return -1, 0, r.broken(reason)
		}
		r.scan = end - r.r
	}
}

// plainHeader is the fast path for the usual block,
// "Content-Length: N\r\n\r\n" wholly buffered: it consumes it and returns N.
// Anything else is left to the general parser.
func (r *Reader) plainHeader() (n int64, ok bool) {
	const prefix = "Content-Length: "
	b := r.buf[r.r:r.w]
	if len(b) < len(prefix)+5 || string(b[:len(prefix)]) != prefix {
		return 0, false
	}
	i := len(prefix)
	for ; i < len(b) && i < len(prefix)+18; i++ { // 18 digits cannot overflow
		d := b[i] - '0'
		if d > 9 {
			break
		}
		n = n*10 + int64(d)
	}
	if i == len(prefix) || len(b)-i < 4 || string(b[i:i+4]) != "\r\n\r\n" {
		return 0, false
	}
	r.r += i + 4
	return n, true
}

// headerLine checks one "Name: value" line and records Content-Length. It
// returns why the line is unacceptable, or "".
func (r *Reader) headerLine(line []byte) string {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return "malformed header line"
	}
	name := line[:colon]
	for _, c := range name {
		if !isTokenChar(c) {
			return "malformed header name"
		}
	}
	if !isContentLength(name) {
		return ""
	}
	v := trimSpace(line[colon+1:])
	if len(v) == 0 {
		return "malformed Content-Length"
	}
	var n int64
	for _, c := range v {
		d := int64(c) - '0'
		if d < 0 || d > 9 {
			return "malformed Content-Length"
		}
		if n > (math.MaxInt64-d)/10 {
			return "Content-Length out of range"
		}
		n = n*10 + d
	}
	if r.clen >= 0 && r.clen != n {
		return "conflicting Content-Length headers"
	}
	r.clen = n
	return ""
}

// isTokenChar reports whether c may appear in a header name (an RFC 9110
// token).
func isTokenChar(c byte) bool {
	return c < 0x80 && tokenChars[c]
}

var tokenChars = [0x80]bool{
	'!': true, '#': true, '$': true, '%': true, '&': true, '\'': true, '*': true,
	'+': true, '-': true, '.': true, '^': true, '_': true, '`': true, '|': true, '~': true,
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'A': true, 'B': true, 'C': true, 'D': true, 'E': true, 'F': true, 'G': true, 'H': true, 'I': true,
	'J': true, 'K': true, 'L': true, 'M': true, 'N': true, 'O': true, 'P': true, 'Q': true, 'R': true,
	'S': true, 'T': true, 'U': true, 'V': true, 'W': true, 'X': true, 'Y': true, 'Z': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true, 'g': true, 'h': true, 'i': true,
	'j': true, 'k': true, 'l': true, 'm': true, 'n': true, 'o': true, 'p': true, 'q': true, 'r': true,
	's': true, 't': true, 'u': true, 'v': true, 'w': true, 'x': true, 'y': true, 'z': true,
}

// isContentLength reports whether a header name (token characters only) is "Content-Length" in any case.
func isContentLength(name []byte) bool {
	const want = "content-length"
	if len(name) != len(want) {
		return false
	}
	for i, c := range name {
		if c|0x20 != want[i] {
			return false
		}
	}
	return true
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
