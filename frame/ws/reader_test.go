package ws

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestReader: messages, fragments, control frames and broken streams, for
// both roles, read whole, one byte at a time and in uneven chunks.
func TestReader(t *testing.T) {
	const limit = 100000
	f := func(name string, role Role, stream []byte, want []string, wantErr error) {
		t.Helper()
		readEach(t, name, role, limit, stream, want, wantErr)
	}
	// A server's frames, read by a client.
	s := func(op Opcode, fin bool, p string) []byte { return frame(nil, op, fin, p, Mask{}) }
	text := func(p string) []byte { return s(OpText, true, p) }
	mid, big := strings.Repeat("y", 300), strings.Repeat("x", 70000)
	f("two", Client, join(text("a"), text(`{"x":1}`)), []string{"text:a", `text:{"x":1}`}, io.EOF)
	f("lengths", Client, join(text(mid), s(OpBinary, true, big), text("")), []string{"text:" + mid, "binary:" + big, "text:"}, io.EOF)
	f("fragments and control frames", Client, join(s(OpBinary, false, "ab"), s(OpPing, true, "p"), s(OpContinuation, false, ""),
		s(OpPong, true, ""), s(OpContinuation, true, "cd"), text("e")),
		[]string{"ping:p", "pong:", "binary:abcd", "text:e"}, io.EOF)
	f("close", Client, join(text("a"), AppendClose(nil, 1001, "bye", Mask{}), text("b")), []string{"text:a", "close:1001:bye"}, ErrClosed)
	f("close without code", Client, s(OpClose, true, ""), []string{"close:1005:"}, ErrClosed)
	f("close of one byte", Client, s(OpClose, true, "x"), nil, ErrClosePayload)
	f("close with bad code", Client, AppendClose(nil, 1006, "", Mask{}), nil, ErrClosePayload)
	f("masked", Client, join(text("a"), frame(nil, OpText, true, "b", MaskWith(1))), []string{"text:a"}, ErrMasked)
	f("reserved", Client, join(text("a"), []byte{0x80 | 0x40 | 0x1, 0}), []string{"text:a"}, ErrReserved)
	f("data opcode", Client, []byte{0x83, 0}, nil, ErrOpcode)
	f("control opcode", Client, []byte{0x8b, 0}, nil, ErrOpcode)
	f("long ping", Client, s(OpPing, true, mid), nil, ErrControl)
	f("fragmented ping", Client, s(OpPing, false, "p"), nil, ErrControl)
	f("stray continuation", Client, s(OpContinuation, true, "a"), nil, ErrFragment)
	f("text in fragments", Client, join(s(OpText, false, "a"), text("b")), nil, ErrFragment)
	f("top length bit", Client, []byte{0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0}, nil, ErrLength)
	f("too large", Client, join(text("a"), s(OpBinary, true, strings.Repeat("z", limit+1))), []string{"text:a"}, &TooLargeError{limit})
	f("too large declared", Client, []byte{0x82, 127, 0, 0, 0, 1, 0, 0, 0, 0}, nil, &TooLargeError{limit})
	f("too large joined", Client, join(s(OpText, false, big), s(OpContinuation, true, big)), nil, &TooLargeError{limit})
	f("at the limit", Client, s(OpText, true, strings.Repeat("z", limit)), []string{"text:" + strings.Repeat("z", limit)}, io.EOF)
	f("empty", Client, nil, nil, io.EOF)
	f("truncated header", Client, text("abc")[:1], nil, io.ErrUnexpectedEOF)
	f("truncated payload", Client, text("abc")[:3], nil, io.ErrUnexpectedEOF)
	f("truncated message", Client, s(OpText, false, "abc"), nil, io.ErrUnexpectedEOF)

	// A client's frames, read by a server.
	c := func(op Opcode, fin bool, p string) []byte { return frame(nil, op, fin, p, MaskWith(0x9a8b7c6d)) }
	f("masked two", Server, join(c(OpText, true, "hello"), c(OpBinary, true, mid)), []string{"text:hello", "binary:" + mid}, io.EOF)
	f("masked fragments", Server, join(c(OpText, false, "hel"), c(OpPing, true, "p"), c(OpContinuation, true, "lo")),
		[]string{"ping:p", "text:hello"}, io.EOF)
	f("masked close", Server, AppendClose(nil, 1000, "", MaskWith(5)), []string{"close:1000:"}, ErrClosed)
	f("unmasked", Server, join(c(OpText, true, "a"), text("b")), []string{"text:a"}, ErrUnmasked)
	f("masked too large", Server, c(OpText, true, strings.Repeat("z", limit+1)), nil, &TooLargeError{limit})
}

// TestReaderProtocolErrors: every rule's error wraps ErrProtocol; the
// limit's does not.
func TestReaderProtocolErrors(t *testing.T) {
	for _, err := range []error{ErrReserved, ErrOpcode, ErrControl, ErrFragment, ErrMasked, ErrUnmasked, ErrLength, ErrClosePayload} {
		if !errors.Is(err, ErrProtocol) || !strings.HasPrefix(err.Error(), "ws: protocol error: ") {
			t.Errorf("%v does not wrap ErrProtocol", err)
		}
	}
	tl := &TooLargeError{Limit: 1024}
	if errors.Is(tl, ErrProtocol) || tl.Error() != "ws: message over the limit of 1024 bytes" {
		t.Errorf("TooLargeError: %v", tl)
	}
}

// TestReaderSticky: a broken rule is returned again; a source's error is
// not, and reading goes on after it (a timeout).
func TestReaderSticky(t *testing.T) {
	var rd Reader
	rd.Reset(bytes.NewReader([]byte{0x83, 0}), Client, 0)
	for range 3 {
		if _, _, err := rd.Next(); err != ErrOpcode {
			t.Fatalf("got %v, want ErrOpcode again", err)
		}
	}
	timeout := errors.New("timeout")
	stream := AppendFrame(nil, OpText, []byte("hello"), Mask{})
	src := &stepReader{steps: [][]byte{stream[:4], nil, stream[4:]}, err: timeout}
	rd.Reset(src, Client, 0)
	if _, _, err := rd.Next(); err != timeout {
		t.Fatalf("got %v, want the source's error", err)
	}
	if op, p, err := rd.Next(); op != OpText || string(p) != "hello" || err != nil {
		t.Fatalf("after the error: %v %q %v", op, p, err)
	}
}

// stepReader hands out steps, at most one per read; a nil step is a read
// that fails with err.
type stepReader struct {
	steps [][]byte
	err   error
}

func (r *stepReader) Read(p []byte) (int, error) {
	if len(r.steps) == 0 {
		return 0, io.EOF
	}
	s := r.steps[0]
	if s == nil {
		r.steps = r.steps[1:]
		return 0, r.err
	}
	n := copy(p, s)
	if r.steps[0] = s[n:]; len(r.steps[0]) == 0 {
		r.steps = r.steps[1:]
	}
	return n, nil
}

// TestReady: Ready says whether Next can answer from the buffer, and keeps
// what it found for Next.
func TestReady(t *testing.T) {
	stream := join(AppendFrame(nil, OpText, []byte("a"), Mask{}), AppendFrame(nil, OpPing, nil, Mask{}), AppendFrame(nil, OpText, []byte("b"), Mask{}))
	var rd Reader
	rd.Reset(&stepReader{steps: [][]byte{stream[:5], stream[5:]}}, Client, 0)
	if rd.Ready() {
		t.Fatal("ready before any read")
	}
	want := []struct {
		op    Opcode
		p     string
		ready bool
	}{{OpText, "a", true}, {OpPing, "", false}, {OpText, "b", false}}
	for i, w := range want {
		op, p, err := rd.Next()
		if op != w.op || string(p) != w.p || err != nil {
			t.Fatalf("%d: %v %q %v", i, op, p, err)
		}
		if r := rd.Ready(); r != w.ready {
			t.Fatalf("%d: Ready() = %v after it", i, r)
		}
		if rd.Ready() != w.ready {
			t.Fatalf("%d: Ready changed its mind", i)
		}
	}
	if _, _, err := rd.Next(); err != io.EOF {
		t.Fatalf("at the end: %v", err)
	}
	rd.Reset(bytes.NewReader(nil), Client, 0)
	rd.buf = append(rd.buf[:0], 0x83, 0) // a broken frame buffered
	rd.w = 2
	if !rd.Ready() {
		t.Fatal("not ready with an error buffered")
	}
	if _, _, err := rd.Next(); err != ErrOpcode {
		t.Fatalf("got %v, want ErrOpcode", err)
	}
}

// TestReaderBuffer: the buffer grows for a large message, stays for
// messages that fit, and is dropped for a small one once it has emptied.
func TestReaderBuffer(t *testing.T) {
	big := AppendFrame(nil, OpBinary, bytes.Repeat([]byte("b"), 1<<20), Mask{})
	small := AppendFrame(nil, OpText, []byte("s"), Mask{})
	src := &stepReader{steps: [][]byte{big, small}}
	var rd Reader
	rd.Reset(src, Client, 0)
	if _, p, err := rd.Next(); len(p) != 1<<20 || err != nil {
		t.Fatalf("big: %d bytes, %v", len(p), err)
	}
	if len(rd.buf) < 1<<20 {
		t.Fatalf("buffer of %d bytes after a 1 MiB message", len(rd.buf))
	}
	if _, p, err := rd.Next(); string(p) != "s" || err != nil {
		t.Fatalf("small: %q, %v", p, err)
	}
	if len(rd.buf) > maxKept {
		t.Errorf("buffer of %d bytes kept after a small message", len(rd.buf))
	}
	var tiny Reader
	tiny.Reset(bytes.NewReader(small), Client, 10)
	if _, _, err := tiny.Next(); err != nil || len(tiny.buf) != 10+MaxHeaderLen {
		t.Errorf("limit 10: buffer of %d bytes, %v", len(tiny.buf), err)
	}
}

// TestHandshakeConn: nothing past the header block is handed out with it;
// it comes afterwards, before the connection's next bytes.
func TestHandshakeConn(t *testing.T) {
	f := func(chunks []string, wantHeader, wantRest string) {
		t.Helper()
		steps := make([][]byte, len(chunks))
		for i, c := range chunks {
			steps[i] = []byte(c)
		}
		c := &HandshakeConn{Conn: fakeConn{&stepReader{steps: steps}}}
		var header []byte
		buf := make([]byte, 64)
		for !c.done {
			n, err := c.Read(buf)
			header = append(header, buf[:n]...)
			if err != nil {
				t.Fatalf("%q: %v", chunks, err)
			}
		}
		rest, _ := io.ReadAll(c)
		if string(header) != wantHeader || string(rest) != wantRest {
			t.Errorf("%q: header %q, rest %q; want %q, %q", chunks, header, rest, wantHeader, wantRest)
		}
	}
	f([]string{"HTTP/1.1 101 OK\r\nA: b\r\n\r\n\x81\x01a", "\x81\x01b"}, "HTTP/1.1 101 OK\r\nA: b\r\n\r\n", "\x81\x01a\x81\x01b")
	f([]string{"HTTP/1.1 101 OK\r\n", "\r", "\n", "more"}, "HTTP/1.1 101 OK\r\n\r\n", "more")
	f([]string{"H\n\nrest"}, "H\n\n", "rest")
	f([]string{"HTTP/1.1 101 OK\r\n\r\n"}, "HTTP/1.1 101 OK\r\n\r\n", "")
}

// fakeConn is a net.Conn that only reads.
type fakeConn struct{ io.Reader }

func (fakeConn) Write([]byte) (int, error)        { return 0, io.ErrClosedPipe }
func (fakeConn) Close() error                     { return nil }
func (fakeConn) LocalAddr() net.Addr              { return nil }
func (fakeConn) RemoteAddr() net.Addr             { return nil }
func (fakeConn) SetDeadline(time.Time) error      { return nil }
func (fakeConn) SetReadDeadline(time.Time) error  { return nil }
func (fakeConn) SetWriteDeadline(time.Time) error { return nil }
