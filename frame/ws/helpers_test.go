package ws

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
)

// opName names op in the results of readAll.
func opName(op Opcode) string {
	switch op {
	case OpText:
		return "text"
	case OpBinary:
		return "binary"
	case OpClose:
		return "close"
	case OpPing:
		return "ping"
	case OpPong:
		return "pong"
	}
	return "op" + strconv.Itoa(int(op))
}

// readAll reads src to the end as role with the message limit max and
// returns what Next handed out, one "op:payload" string each (a close frame
// as "close:CODE:reason"), and the error that ended it.
func readAll(src io.Reader, role Role, max int) ([]string, error) {
	var rd Reader
	rd.Reset(src, role, max)
	var got []string
	for {
		op, p, err := rd.Next()
		if err != nil {
			return got, err
		}
		s := opName(op) + ":" + string(p)
		if op == OpClose {
			code, reason := ParseClose(p)
			s = "close:" + strconv.Itoa(code) + ":" + string(reason)
		}
		got = append(got, s)
	}
}

// sameErr reports whether two of Next's errors are the same for the
// tests: equal, or both *TooLargeError with the same limit.
func sameErr(a, b error) bool {
	var ta, tb *TooLargeError
	if errors.As(a, &ta) && errors.As(b, &tb) {
		return *ta == *tb
	}
	return a == b
}

// frame appends one frame (final or not) with payload, masked as m says.
func frame(dst []byte, op Opcode, fin bool, payload string, m Mask) []byte {
	dst = AppendHeader(dst, op, fin, len(payload), m)
	start := len(dst)
	dst = append(dst, payload...)
	m.Apply(dst[start:])
	return dst
}

// join concatenates frames into a stream.
func join(fs ...[]byte) []byte { return bytes.Join(fs, nil) }

// chunkReader hands out b in reads whose lengths cycle through sizes (0
// is read as 1).
type chunkReader struct {
	b     []byte
	sizes []byte
	i     int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := len(p)
	if len(r.sizes) > 0 {
		n = min(n, max(1, int(r.sizes[r.i%len(r.sizes)])))
		r.i++
	}
	n = copy(p, r.b[:min(n, len(r.b))])
	r.b = r.b[n:]
	return n, nil
}

// replayReader hands out b once, then io.EOF.
type replayReader struct{ b []byte }

func (r *replayReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// list joins results for messages.
func list(s []string) string { return strings.Join(s, "|") }
