package ws

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"
)

// rfcKey is the masking key of RFC 6455 section 5.7's examples, 37 fa 21 3d.
var rfcKey = MaskWith(0x3d21fa37)

// TestRFCExamples: the frames of RFC 6455 section 5.7, written by
// AppendFrame and AppendHeader byte for byte, and read back.
func TestRFCExamples(t *testing.T) {
	f := func(name string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Errorf("%s: wrote\n% x\nwant\n% x", name, got, want)
		}
	}
	hello := []byte("Hello")
	unmaskedHello := []byte{0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f}
	maskedHello := []byte{0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}
	fragmented := []byte{0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f}
	ping := []byte{0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f}
	pong := []byte{0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58}
	bin256 := bytes.Repeat([]byte{0xa5}, 256)
	bin64k := bytes.Repeat([]byte{0x5a}, 65536)

	f("unmasked Hello", AppendFrame(nil, OpText, hello, Mask{}), unmaskedHello)
	f("masked Hello", AppendFrame(nil, OpText, hello, rfcKey), maskedHello)
	f("fragmented", join(frame(nil, OpText, false, "Hel", Mask{}), frame(nil, OpContinuation, true, "lo", Mask{})), fragmented)
	f("ping", AppendFrame(nil, OpPing, hello, Mask{}), ping)
	f("pong", AppendFrame(nil, OpPong, hello, rfcKey), pong)
	f("256 bytes", AppendFrame(nil, OpBinary, bin256, Mask{}), append([]byte{0x82, 0x7e, 0x01, 0x00}, bin256...))
	f("64 KiB", AppendFrame(nil, OpBinary, bin64k, Mask{}), append([]byte{0x82, 0x7f, 0, 0, 0, 0, 0, 1, 0, 0}, bin64k...))

	r := func(name string, role Role, stream []byte, want ...string) {
		t.Helper()
		got, err := readAll(bytes.NewReader(stream), role, 0)
		if list(got) != list(want) || err != io.EOF {
			t.Errorf("%s: read %.60q, %v; want %.60q, EOF", name, got, err, want)
		}
	}
	r("unmasked Hello", Client, unmaskedHello, "text:Hello")
	r("masked Hello", Server, maskedHello, "text:Hello")
	r("fragmented", Client, fragmented, "text:Hello")
	r("ping", Client, ping, "ping:Hello")
	r("pong", Server, pong, "pong:Hello")
	r("256 bytes", Client, append([]byte{0x82, 0x7e, 0x01, 0x00}, bin256...), "binary:"+string(bin256))
	r("64 KiB", Client, append([]byte{0x82, 0x7f, 0, 0, 0, 0, 0, 1, 0, 0}, bin64k...), "binary:"+string(bin64k))
}

// TestAppendHeader: each length encoding at its edges, masked or not, and
// dst kept.
func TestAppendHeader(t *testing.T) {
	f := func(n int, m Mask, want ...byte) {
		t.Helper()
		got := AppendHeader([]byte("keep"), OpBinary, true, n, m)
		if string(got[:4]) != "keep" || !bytes.Equal(got[4:], want) {
			t.Errorf("%d bytes, %+v: % x, want % x", n, m, got[4:], want)
		}
	}
	f(0, Mask{}, 0x82, 0)
	f(125, Mask{}, 0x82, 125)
	f(126, Mask{}, 0x82, 126, 0, 126)
	f(65535, Mask{}, 0x82, 126, 0xff, 0xff)
	f(65536, Mask{}, 0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0)
	f(1, MaskWith(0x04030201), 0x82, 0x81, 1, 2, 3, 4)
	f(300, MaskWith(0x04030201), 0x82, 0xfe, 1, 44, 1, 2, 3, 4)
	if got := AppendHeader(nil, OpText, false, 3, Mask{}); !bytes.Equal(got, []byte{0x01, 3}) {
		t.Errorf("a first fragment: % x", got)
	}
}

// TestMask: Apply masks byte i with key byte i%4, at every length around
// the 8-byte steps, and undoes itself.
func TestMask(t *testing.T) {
	key := [4]byte{0x37, 0xfa, 0x21, 0x3d}
	m := MaskWith(binary.LittleEndian.Uint32(key[:]))
	for n := range 40 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + 3)
		}
		orig := bytes.Clone(b)
		m.Apply(b)
		for i := range b {
			if b[i] != orig[i]^key[i%4] {
				t.Fatalf("%d bytes: byte %d is %x, want %x", n, i, b[i], orig[i]^key[i%4])
			}
		}
		m.Apply(b)
		if !bytes.Equal(b, orig) {
			t.Fatalf("%d bytes: not restored", n)
		}
		Mask{}.Apply(b)
		if !bytes.Equal(b, orig) {
			t.Fatalf("%d bytes: the zero Mask changed them", n)
		}
	}
}

// TestAppendClose: the close payload, no payload for no status, a long
// reason cut at a character boundary, and ParseClose back.
func TestAppendClose(t *testing.T) {
	f := func(code int, reason string, m Mask, want []byte) {
		t.Helper()
		if got := AppendClose(nil, code, reason, m); !bytes.Equal(got, want) {
			t.Errorf("close %d %q: % x, want % x", code, reason, got, want)
		}
	}
	f(1000, "", Mask{}, []byte{0x88, 2, 0x03, 0xe8})
	f(1001, "bye", Mask{}, []byte{0x88, 5, 0x03, 0xe9, 'b', 'y', 'e'})
	f(CloseNoStatus, "ignored", Mask{}, []byte{0x88, 0})
	f(0, "", MaskWith(7), []byte{0x88, 0x80, 7, 0, 0, 0})
	f(1009, "", rfcKey, []byte{0x88, 0x82, 0x37, 0xfa, 0x21, 0x3d, 0x03 ^ 0x37, 0xf1 ^ 0xfa})

	long := strings.Repeat("é", 100) // 200 bytes; 123 would cut one in half
	fr := AppendClose(nil, 4000, long, Mask{})
	code, reason := ParseClose(fr[2:])
	if code != 4000 || string(reason) != strings.Repeat("é", 61) || int(fr[1]) != 2+122 {
		t.Errorf("long reason: code %d, %d bytes of reason, length byte %d", code, len(reason), fr[1])
	}
	if code, reason := ParseClose(nil); code != CloseNoStatus || reason != nil {
		t.Errorf("ParseClose(nil) = %d, %q", code, reason)
	}
}

// TestCheckClose: the close payloads a peer may send.
func TestCheckClose(t *testing.T) {
	f := func(payload []byte, ok bool) {
		t.Helper()
		if err := checkClose(payload); (err == nil) != ok {
			t.Errorf("% x: %v, want ok %v", payload, err, ok)
		}
	}
	code := func(c int, reason string) []byte {
		return append(binary.BigEndian.AppendUint16(nil, uint16(c)), reason...)
	}
	f(nil, true)
	f([]byte{3}, false)
	for _, c := range []int{1000, 1001, 1002, 1003, 1007, 1010, 1011, 1014, 3000, 4999} {
		f(code(c, "ok"), true)
	}
	for _, c := range []int{0, 999, 1004, 1005, 1006, 1015, 2999, 5000, 65535} {
		f(code(c, ""), false)
	}
	f(code(1000, "\xff"), false)
}

func TestIsControl(t *testing.T) {
	for op := range Opcode(16) {
		if op.IsControl() != (op >= 8) {
			t.Errorf("%#x.IsControl() = %v", op, op.IsControl())
		}
	}
}
