package ws

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
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

// readEach reads stream as role with the message limit max, whole, one
// byte at a time, in uneven chunks and with the error on the last data,
// and reports any way of reading whose results or error differ from want
// and wantErr.
func readEach(t *testing.T, name string, role Role, max int, stream []byte, want []string, wantErr error) {
	t.Helper()
	srcs := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(stream) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(stream)) },
		"chunks":   func() io.Reader { return &chunkReader{b: stream, sizes: []byte{3, 1, 7, 200, 2}} },
		"data+err": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(stream)) },
	}
	for how, src := range srcs {
		got, err := readAll(src(), role, max)
		if list(got) != list(want) || !sameErr(err, wantErr) {
			t.Errorf("%s (%s): got %d results %.50q, %v; want %.50q, %v", name, how, len(got), got, err, want, wantErr)
		}
	}
}

// sameErr reports whether two of Next's errors are the same for the
// tests: equal, or both *TooLargeError with the same limit, or both
// *UTF8Error with the same offset.
func sameErr(a, b error) bool {
	var ta, tb *TooLargeError
	if errors.As(a, &ta) && errors.As(b, &tb) {
		return *ta == *tb
	}
	var ua, ub *UTF8Error
	if errors.As(a, &ua) && errors.As(b, &ub) {
		return *ua == *ub
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
