package ws

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// The invalid kinds of RFC 3629 (and of Autobahn|Testsuite's 6.x cases),
// each an ill-formed sequence that begins at its first byte; at is the
// index of the byte that makes it ill-formed, the last a Reader needs to
// see.
var badSequences = []struct {
	name, b string
	at      int
}{
	{"surrogate D800", "\xed\xa0\x80", 1},
	{"surrogate DFFF", "\xed\xbf\xbf", 1},
	{"overlong C0", "\xc0\xaf", 0},
	{"overlong C1", "\xc1\xbf", 0},
	{"overlong NUL", "\xc0\x80", 0},
	{"overlong E0 80", "\xe0\x80\xaf", 1},
	{"overlong E0 9F", "\xe0\x9f\xbf", 1},
	{"overlong F0 80", "\xf0\x80\x80\xaf", 1},
	{"overlong F0 8F", "\xf0\x8f\xbf\xbf", 1},
	{"lone continuation 80", "\x80", 0},
	{"lone continuation BF", "\xbf\x80", 0},
	{"F5", "\xf5\x80\x80\x80", 0},
	{"F7", "\xf7\xbf\xbf\xbf", 0},
	{"FE", "\xfe", 0},
	{"FF", "\xff\xff", 0},
	{"above 10FFFF", "\xf4\x90\x80\x80", 1},
	{"5-byte form", "\xf8\x88\x80\x80\x80", 0},
	{"6-byte form", "\xfc\x84\x80\x80\x80\x80", 0},
	{"2-byte cut by ASCII", "\xc3(", 1},
	{"3-byte cut by ASCII", "\xe2\x82A", 2},
	{"4-byte cut by ASCII", "\xf0\x9f\x98A", 3},
	{"lead after lead", "\xe2\xe2\x82\xac", 1},
}

// Valid characters at the edges of RFC 3629's table, of 2, 3 and 4 bytes.
var goodRunes = []string{
	"\u0080", "é", "\u07ff", // 2 bytes
	"\u0800", "€", "\ud7ff", "\ue000", "\ufffd", "\ufffe", "\uffff", // 3 bytes
	"\U00010000", "𝄞", "\U0010ffff", // 4 bytes
}

// TestUTF8: the check on whole texts and on the same texts in two pieces
// cut at every byte, against the standard library's decoder.
func TestUTF8(t *testing.T) {
	f := func(in string, wantBad int) {
		t.Helper()
		b := []byte(in)
		if got := badAt(b, len(b)); got != wantBad {
			t.Errorf("%q: bad at %d, want %d", in, got, wantBad)
		}
		if got := badOffset(b); got != wantBad {
			t.Errorf("%q: the standard library says %d, the test %d", in, got, wantBad)
		}
		for cut := range len(b) {
			if got := badAt(b, cut); got != wantBad {
				t.Errorf("%q cut at %d: bad at %d, want %d", in, cut, got, wantBad)
			}
		}
	}
	const prefix = `{"jsonrpc":"2.0","p":"κόσμε `
	for _, s := range badSequences {
		f(s.b, 0)
		f(prefix+s.b+"edited", len(prefix))
	}
	for _, r := range goodRunes {
		f(r, -1)
		f(prefix+r+r+"x"+r, -1)
		for n := 1; n < len(r); n++ {
			f(prefix+r[:n], len(prefix)) // cut at the end
		}
	}
	f("", -1)
	f(strings.Repeat("a", 17)+"\x80", 17)
	f(strings.Repeat("aé€𝄞", 9), -1)
}

// badAt checks b in two pieces, cut at cut, and returns where the first
// ill-formed sequence begins (the end for an unfinished one), or -1.
func badAt(b []byte, cut int) int {
	var s utf8State
	if bad, ok := s.check(b[:cut]); !ok {
		return bad
	}
	if bad, ok := s.check(b[cut:]); !ok {
		return cut + bad
	}
	if s.need > 0 {
		return len(b) - int(s.have)
	}
	return -1
}

// TestReaderUTF8: text messages whole, fragmented and with characters cut
// between fragments, read in every way (readEach) by both roles; binary
// messages and pings are not checked; close reasons are.
func TestReaderUTF8(t *testing.T) {
	const prefix = `{"jsonrpc":"2.0","p":"κόσμε `
	for _, role := range []Role{Client, Server} {
		fr := framer(role)
		f := func(name string, stream []byte, want []string, wantErr error) {
			t.Helper()
			readEach(t, name+" "+roleName(role), role, 0, stream, want, wantErr)
		}
		for _, s := range badSequences {
			bad := &UTF8Error{Offset: len(prefix)}
			f(s.name+" in one frame", fr(OpText, true, prefix+s.b+"edited"), nil, bad)
			f(s.name+" in the 2nd fragment", join(fr(OpText, false, prefix), fr(OpPing, true, "p"),
				fr(OpContinuation, false, s.b+"edited"), fr(OpContinuation, true, "end")), []string{"ping:p"}, bad)
			if s.at > 0 {
				f(s.name+" cut between fragments", join(fr(OpText, false, prefix+s.b[:s.at]), fr(OpPing, true, "p"),
					fr(OpContinuation, true, s.b[s.at:]+"edited")), []string{"ping:p"}, bad)
			}
			f(s.name+" after a message", join(fr(OpText, true, "ok"), fr(OpText, true, s.b)), []string{"text:ok"}, &UTF8Error{Offset: 0})
			f(s.name+" in binary", fr(OpBinary, true, s.b), []string{"binary:" + s.b}, io.EOF)
			f(s.name+" in binary fragments", join(fr(OpBinary, false, s.b[:1]), fr(OpContinuation, true, s.b[1:])), []string{"binary:" + s.b}, io.EOF)
			f(s.name+" in a ping", fr(OpPing, true, s.b), []string{"ping:" + s.b}, io.EOF)
			f(s.name+" in a close reason", AppendClose(nil, CloseNormal, s.b, mask(role)), nil, ErrCloseReason)
		}
		for _, r := range goodRunes {
			msg := prefix + r + "y"
			f(r+" whole", fr(OpText, true, msg), []string{"text:" + msg}, io.EOF)
			for n := 1; n < len(r); n++ {
				f(r+" cut between fragments", join(fr(OpText, false, prefix+r[:n]), fr(OpPing, true, "p"), fr(OpContinuation, true, r[n:]+"y")),
					[]string{"ping:p", "text:" + msg}, io.EOF)
				f(r+" cut at the end", fr(OpText, true, prefix+r[:n]), nil, &UTF8Error{Offset: len(prefix)})
				f(r+" cut at the end, fragmented", join(fr(OpText, false, prefix+r[:n]), fr(OpContinuation, true, "")),
					nil, &UTF8Error{Offset: len(prefix)})
			}
			f(r+" in 1-byte fragments", oneByteFragments(fr, msg), []string{"text:" + msg}, io.EOF)
		}
		long := strings.Repeat("aé€𝄞", 40)
		f("long, in 1-byte fragments", oneByteFragments(fr, long), []string{"text:" + long}, io.EOF)
		f("long, whole", fr(OpText, true, long), []string{"text:" + long}, io.EOF)
		f("empty fragments", join(fr(OpText, false, ""), fr(OpContinuation, false, "é"), fr(OpContinuation, true, "")), []string{"text:é"}, io.EOF)
		f("close reason", AppendClose(nil, CloseNormal, "κόσμε", mask(role)), []string{"close:1000:κόσμε"}, ErrClosed)
		f("Autobahn 7.5.1", AppendClose(nil, CloseNormal, "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited", mask(role)), nil, ErrCloseReason)
	}
}

// TestReaderUTF8FailFast: a bad sequence fails the message as soon as the
// byte that makes it bad is read, one byte at a time: the Reader asks for
// nothing after it, neither the rest of the frame nor the next fragment
// (Autobahn 6.4.1-6.4.4). Buffered, it is found by Ready.
func TestReaderUTF8FailFast(t *testing.T) {
	const prefix = `{"jsonrpc":"2.0","p":"κόσμε `
	for _, role := range []Role{Client, Server} {
		fr := framer(role)
		// stream has the bad byte at cut-1.
		f := func(name string, stream []byte, cut int, want []string) {
			t.Helper()
			name += " " + roleName(role)
			wantErr := &UTF8Error{Offset: len(prefix)}
			got, err := readAll(&strictReader{b: stream, left: cut}, role, 0)
			if list(got) != list(want) || !sameErr(err, wantErr) {
				t.Errorf("%s: got %q, %v; want %q, %v", name, got, err, want, wantErr)
			}
			var rd Reader
			rd.Reset(bytes.NewReader(nil), role, 0)
			rd.buf = append(rd.buf[:0], stream[:cut]...)
			rd.w = cut
			for range want {
				rd.Next()
			}
			if !rd.Ready() {
				t.Errorf("%s: not ready with the bad byte buffered", name)
			}
			if _, _, err := rd.Next(); !sameErr(err, wantErr) {
				t.Errorf("%s, buffered: %v, want %v", name, err, wantErr)
			}
		}
		for _, s := range badSequences {
			one := fr(OpText, true, prefix+s.b+"edited, and more to come")
			f(s.name+" in one frame", one, len(one)-len(s.b)-len("edited, and more to come")+s.at+1, nil)
			first := join(fr(OpText, false, prefix), fr(OpPing, true, "p"))
			second := fr(OpContinuation, false, s.b+"edited")
			f(s.name+" in the 2nd fragment", join(first, second, fr(OpContinuation, true, "end")),
				len(first)+len(second)-len(s.b)-len("edited")+s.at+1, []string{"ping:p"})
			if s.at > 0 {
				first = fr(OpText, false, prefix+s.b[:s.at])
				second = fr(OpContinuation, false, s.b[s.at:]+"edited")
				f(s.name+" cut between fragments", join(first, second, fr(OpContinuation, true, "end")),
					len(first)+len(second)-len(s.b[s.at:])-len("edited")+1, nil)
			}
		}
	}
}

// errTooFar is what strictReader gives when asked for more than it holds.
var errTooFar = errors.New("read past the bad byte")

// strictReader hands out b one byte per read, left bytes in all; a read
// after them fails with errTooFar.
type strictReader struct {
	b    []byte
	left int
}

func (r *strictReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, errTooFar
	}
	n := copy(p[:1], r.b)
	r.b, r.left = r.b[n:], r.left-n
	return n, nil
}

// framer returns a function that writes frames for role to read: masked,
// with keys that differ from frame to frame, for a server.
func framer(role Role) func(op Opcode, fin bool, p string) []byte {
	return func(op Opcode, fin bool, p string) []byte { return frame(nil, op, fin, p, mask(role)) }
}

// mask returns a Mask for a frame that role reads.
func mask(role Role) Mask {
	if role == Server {
		return MaskWith(0x9a8b7c6d)
	}
	return Mask{}
}

// oneByteFragments writes msg as a text message with a frame for each of
// its bytes (Autobahn 6.2.3).
func oneByteFragments(fr func(Opcode, bool, string) []byte, msg string) []byte {
	var stream []byte
	for i := range len(msg) {
		op := OpContinuation
		if i == 0 {
			op = OpText
		}
		stream = append(stream, fr(op, i == len(msg)-1, msg[i:i+1])...)
	}
	return stream
}

func roleName(role Role) string {
	if role == Server {
		return "(server)"
	}
	return "(client)"
}

// TestUTF8Error: ErrInvalidUTF8 is not a protocol error; ErrCloseReason is.
func TestUTF8Error(t *testing.T) {
	var err error = &UTF8Error{Offset: 12}
	if !errors.Is(err, ErrInvalidUTF8) || errors.Is(err, ErrProtocol) || err.Error() != "ws: invalid UTF-8 in a text message at offset 12" {
		t.Errorf("UTF8Error: %v", err)
	}
	if !errors.Is(ErrCloseReason, ErrProtocol) || errors.Is(ErrCloseReason, ErrInvalidUTF8) {
		t.Errorf("ErrCloseReason: %v", ErrCloseReason)
	}
	if !utf8.ValidString(strings.Join(goodRunes, "")) {
		t.Error("goodRunes holds a bad one")
	}
}

// FuzzUTF8: the check, on any bytes in two pieces, finds what the standard
// library's decoder finds, at the same offset.
func FuzzUTF8(f *testing.F) {
	for _, s := range badSequences {
		f.Add([]byte("ab"+s.b+"cd"), uint(s.at+2))
	}
	for _, r := range goodRunes {
		f.Add([]byte("xyz"+r+r), uint(4))
	}
	f.Fuzz(func(t *testing.T, b []byte, cut uint) {
		c := int(cut % uint(len(b)+1))
		if got, want := badAt(b, c), badOffset(b); got != want {
			t.Fatalf("%q cut at %d: bad at %d, the standard library says %d", b, c, got, want)
		}
	})
}

// TestOrBytes: orBytes and maskBytes see a high bit at any position of
// any length around their 4-, 8- and 16-byte steps, and none in ASCII.
func TestOrBytes(t *testing.T) {
	for n := range 40 {
		b := bytes.Repeat([]byte{0x7f}, n)
		if orBytes(b)&msb != 0 || maskBytes(bytes.Clone(b), 0)&msb != 0 {
			t.Errorf("%d ASCII bytes: %#x", n, orBytes(b))
		}
		for k := range n {
			b[k] = 0x80
			if orBytes(b)&msb == 0 {
				t.Errorf("%d bytes, 0x80 at %d: not seen", n, k)
			}
			masked := bytes.Clone(b)
			m := MaskWith(0x0f1f2f3f)
			m.Apply(masked)
			if maskBytes(masked, 0x0f1f2f3f)&msb == 0 || !bytes.Equal(masked, b) {
				t.Errorf("%d bytes, 0x80 at %d: not seen unmasking", n, k)
			}
			b[k] = 0x7f
		}
	}
}
