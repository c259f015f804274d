package httpc

import (
	"bytes"

	"github.com/jetrpc/jetrpc/internal/httpz"
)

// Head is what this package reads of a response's head.
type Head struct {
	Status        int
	ContentLength int64 // -1: not given
	Chunked       bool
	Close         bool // the server closes the connection after this answer
	Encoding      httpz.Encoding
	BadEncoding   bool   // a Content-Encoding other than gzip, deflate, identity
	raw           []byte // the header lines
}

// parse reads the status line and the headers that frame the body.
func (h *Head) parse(head []byte) error {
	line, rest, _ := bytes.Cut(head, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	// "HTTP/1.x NNN reason"
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || line[8] != ' ' || len(line) > 12 && line[12] != ' ' {
		return ErrMalformed
	}
	status, ok := parseUint(line[9:12], 10)
	if !ok || status < 100 {
		return ErrMalformed
	}
	*h = Head{Status: int(status), ContentLength: -1, Close: line[7] == '0', raw: rest}
	for l := range h.lines() {
		name, value, ok := bytes.Cut(l, []byte(":"))
		if !ok {
			return ErrMalformed
		}
		value = bytes.TrimSpace(value)
		switch {
		case fold(name, "content-length"):
			n, ok := parseUint(value, 10)
			if !ok {
				return ErrMalformed
			}
			h.ContentLength = int64(n)
		case fold(name, "transfer-encoding"):
			h.Chunked = hasToken(value, "chunked")
		case fold(name, "content-encoding"):
			h.Encoding, ok = httpz.ContentEncoding(value)
			h.BadEncoding = !ok
		case fold(name, "connection"):
			if hasToken(value, "close") {
				h.Close = true
			} else if hasToken(value, "keep-alive") {
				h.Close = false
			}
		}
	}
	return nil
}

// lines yields the header lines without their ends.
func (h *Head) lines() func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for l := range bytes.SplitSeq(h.raw, []byte("\n")) {
			if l = bytes.TrimSuffix(l, []byte("\r")); len(l) > 0 && !yield(l) {
				return
			}
		}
	}
}

// Get returns the value of the first header named name (any case), or nil.
func (h *Head) Get(name string) []byte {
	for l := range h.lines() {
		if n, v, ok := bytes.Cut(l, []byte(":")); ok && fold(n, name) {
			return bytes.TrimSpace(v)
		}
	}
	return nil
}

// hasBody reports whether a body follows the head.
func (h *Head) hasBody() bool {
	return h.Status >= 200 && h.Status != 204 && h.Status != 304
}

// untilClose reports whether the body ran to the end of the connection.
func (h *Head) untilClose() bool {
	return h.hasBody() && !h.Chunked && h.ContentLength < 0
}

// fold reports whether b is s, ignoring ASCII case.
func fold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasToken reports whether the comma-separated list v holds token (any
// case).
func hasToken(v []byte, token string) bool {
	for t := range bytes.SplitSeq(v, []byte(",")) {
		if fold(bytes.TrimSpace(t), token) {
			return true
		}
	}
	return false
}

// parseUint parses b, digits in base 10 or 16, up to 2^62.
func parseUint(b []byte, base uint64) (n uint64, ok bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case base == 16 && 'a' <= c|0x20 && c|0x20 <= 'f':
			d = uint64(c|0x20-'a') + 10
		default:
			return 0, false
		}
		if n = n*base + d; n > 1<<62 {
			return 0, false
		}
	}
	return n, true
}
