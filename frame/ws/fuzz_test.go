package ws

import (
	"bytes"
	"io"
	"testing"
	"unicode/utf8"
)

// FuzzReader: any bytes, read in any chunks by either role, never make the
// Reader panic, hand out a message over the limit or grow its buffer past
// it, hand out a text message that is not UTF-8, and give the same results
// however they are chunked. Messages written by AppendFrame (masked for a
// server to read, fragmented with control frames between the fragments,
// characters cut between them) are read back as they were, up to a text
// message that is not UTF-8, which fails where the standard library's
// decoder finds it bad.
func FuzzReader(f *testing.F) {
	f.Add([]byte{0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f}, []byte{1}, false)
	f.Add([]byte{0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}, []byte{3, 2}, true)
	f.Add([]byte{0x01, 0x03, 0x48, 0x65, 0x6c, 0x89, 0x00, 0x80, 0x02, 0x6c, 0x6f}, []byte{}, false)
	f.Add([]byte{0x88, 0x02, 0x03, 0xe8, 0x81, 0x00}, []byte{2}, false)
	f.Add([]byte{0x82, 0x7e, 0x01, 0x2d}, []byte{1, 2, 3}, false)
	f.Add([]byte("hello\x00world\x00\x00a longer message, fragmented"), []byte{5, 1}, true)
	f.Add([]byte("a\x00b\x00h\xc3\xa9llo \xe2\x82\xac\xf0\x9d\x84\x9e!\x00c\x00d\xed\xa0\x80"), []byte{1}, true)
	f.Fuzz(func(t *testing.T, stream, chunks []byte, server bool) {
		role := Client
		if server {
			role = Server
		}
		whole, wErr := readChecked(t, bytes.NewReader(stream), role)
		parts, pErr := readChecked(t, &chunkReader{b: stream, sizes: chunks}, role)
		if list(whole) != list(parts) || !sameErr(wErr, pErr) {
			t.Fatalf("whole: %q, %v; in chunks %v: %q, %v", whole, wErr, chunks, parts, pErr)
		}
		msgs, frames, wantErr := roundTrip(stream, role)
		got, err := readChecked(t, &chunkReader{b: frames, sizes: chunks}, role)
		if list(got) != list(msgs) || !sameErr(err, wantErr) {
			t.Fatalf("round trip: wrote %q, read %q, %v; want %v", msgs, got, err, wantErr)
		}
	})
}

const fuzzLimit = 300

// readChecked is readAll with the checks of every result and of the buffer.
func readChecked(t *testing.T, src io.Reader, role Role) ([]string, error) {
	var rd Reader
	rd.Reset(src, role, fuzzLimit)
	var got []string
	for {
		op, p, err := rd.Next()
		if len(rd.buf) > fuzzLimit+MaxHeaderLen {
			t.Fatalf("buffer of %d bytes, limit %d", len(rd.buf), fuzzLimit)
		}
		if err != nil {
			return got, err
		}
		switch op {
		case OpText, OpBinary:
			if op == OpText && !utf8.Valid(p) {
				t.Fatalf("a text message that is not UTF-8: %q", p)
			}
			if len(p) > fuzzLimit {
				t.Fatalf("a message of %d bytes, limit %d", len(p), fuzzLimit)
			}
		case OpPing, OpPong, OpClose:
			if len(p) > MaxControlPayload {
				t.Fatalf("a control frame of %d bytes", len(p))
			}
		default:
			t.Fatalf("opcode %d handed out", op)
		}
		got = append(got, opName(op)+":"+string(p))
	}
}

// roundTrip makes messages of the pieces of data between zero bytes (cut
// to the limit) and writes them as frames for role to read: masked for a
// server, every third one in two fragments with a ping between. A text
// message that is not UTF-8 is the last, in one frame. It returns the
// results readChecked should give, the frames and the error it should end
// with.
func roundTrip(data []byte, role Role) (msgs []string, frames []byte, end error) {
	for i, m := range bytes.Split(data, []byte{0}) {
		m = m[:min(len(m), fuzzLimit)]
		op := OpText
		if i%2 == 1 {
			op = OpBinary
		}
		mask := func() Mask {
			if role == Server {
				return MaskWith(uint32(i)*0x9e3779b9 + uint32(len(frames)))
			}
			return Mask{}
		}
		if op == OpText && !utf8.Valid(m) {
			return msgs, AppendFrame(frames, op, m, mask()), &UTF8Error{Offset: badOffset(m)}
		}
		if i%3 == 2 && len(m) >= 2 {
			h := len(m) / 2
			frames = frame(frames, op, false, string(m[:h]), mask())
			frames = AppendFrame(frames, OpPing, m[:min(h, MaxControlPayload)], mask())
			frames = frame(frames, OpContinuation, true, string(m[h:]), mask())
			msgs = append(msgs, "ping:"+string(m[:min(h, MaxControlPayload)]))
		} else {
			frames = AppendFrame(frames, op, m, mask())
		}
		msgs = append(msgs, opName(op)+":"+string(m))
	}
	return msgs, frames, io.EOF
}

// badOffset returns where the first ill-formed sequence of b begins, as
// the standard library's decoder finds it, or -1.
func badOffset(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}
