package ws

import (
	"bytes"
	stdflate "compress/flate"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestAcceptDeflate(t *testing.T) {
	noCT := Deflate{ServerNoContextTakeover: true, ClientNoContextTakeover: true}
	f := func(header string, pref Deflate, want string) {
		t.Helper()
		d, ok := AcceptDeflate(header, pref)
		got := "declined"
		if ok {
			got = string(AppendDeflate(nil, d, false))
		}
		if got != want {
			t.Errorf("AcceptDeflate(%q): %q, want %q", header, got, want)
		}
	}
	f("", noCT, "declined")
	f("x-webkit-deflate-frame", noCT, "declined")
	f("permessage-deflate", Deflate{}, "permessage-deflate")
	f("permessage-deflate", noCT, "permessage-deflate; server_no_context_takeover; client_no_context_takeover")
	f("Permessage-Deflate; client_max_window_bits", Deflate{}, "permessage-deflate")
	f("permessage-deflate; client_max_window_bits", Deflate{ClientMaxWindowBits: 10}, "permessage-deflate; client_max_window_bits=10")
	f("permessage-deflate; client_max_window_bits=9", Deflate{ClientMaxWindowBits: 10}, "permessage-deflate; client_max_window_bits=9")
	f("permessage-deflate", Deflate{ClientMaxWindowBits: 10}, "permessage-deflate") // not offered: not answered
	f("permessage-deflate; server_no_context_takeover", Deflate{}, "permessage-deflate; server_no_context_takeover")
	f("permessage-deflate; server_max_window_bits=10", Deflate{}, "permessage-deflate; server_max_window_bits=10")
	f(`permessage-deflate; server_max_window_bits="10"`, Deflate{}, "permessage-deflate; server_max_window_bits=10")
	f("permessage-deflate; server_max_window_bits=12", Deflate{ServerMaxWindowBits: 9}, "permessage-deflate; server_max_window_bits=9")
	f("permessage-deflate", Deflate{ServerMaxWindowBits: 11}, "permessage-deflate; server_max_window_bits=11")
	// Malformed offers are declined; the next one is taken.
	for _, bad := range []string{
		"permessage-deflate; server_max_window_bits",     // needs a value
		"permessage-deflate; server_max_window_bits=7",   // too small
		"permessage-deflate; server_max_window_bits=16",  // too large
		"permessage-deflate; server_max_window_bits=010", // leading zero
		"permessage-deflate; client_max_window_bits=x",
		"permessage-deflate; server_no_context_takeover=1",
		"permessage-deflate; server_no_context_takeover; server_no_context_takeover",
		"permessage-deflate; client_max_window_bits; client_max_window_bits=10",
		"permessage-deflate; mystery",
		`permessage-deflate; server_max_window_bits="1 0"`,
	} {
		f(bad, Deflate{}, "declined")
		f(bad+", permessage-deflate; client_no_context_takeover", Deflate{}, "permessage-deflate; client_no_context_takeover")
	}
	f("foo; a=\"x,y\", permessage-deflate; server_no_context_takeover", Deflate{}, "permessage-deflate; server_no_context_takeover")
	f(" , permessage-deflate ,", Deflate{}, "permessage-deflate")
}

func TestParseDeflateAnswer(t *testing.T) {
	offer := Deflate{ClientMaxWindowBits: 15}
	f := func(header string, offer Deflate, want string, wantErr error) {
		t.Helper()
		d, ok, err := ParseDeflateAnswer(header, offer)
		got := "declined"
		if ok {
			got = string(AppendDeflate(nil, d, false))
		}
		if got != want || err != wantErr {
			t.Errorf("ParseDeflateAnswer(%q): %q, %v; want %q, %v", header, got, err, want, wantErr)
		}
	}
	f("", offer, "declined", nil)
	f("permessage-deflate", offer, "permessage-deflate", nil)
	f("permessage-deflate; server_no_context_takeover; client_no_context_takeover", offer,
		"permessage-deflate; server_no_context_takeover; client_no_context_takeover", nil)
	f("permessage-deflate; client_max_window_bits=10", offer, "permessage-deflate; client_max_window_bits=10", nil)
	f("permessage-deflate; server_max_window_bits=10", offer, "permessage-deflate; server_max_window_bits=10", nil)
	f("permessage-deflate; client_max_window_bits", offer, "declined", ErrExtension) // a value is due
	f("permessage-deflate; client_max_window_bits=10", Deflate{}, "declined", ErrExtensionAnswer)
	f("permessage-deflate; client_max_window_bits=12", Deflate{ClientMaxWindowBits: 11}, "declined", ErrExtensionAnswer)
	f("permessage-deflate", Deflate{ServerNoContextTakeover: true}, "declined", ErrExtensionAnswer)
	f("permessage-deflate", Deflate{ServerMaxWindowBits: 10}, "declined", ErrExtensionAnswer)
	f("permessage-deflate; server_max_window_bits=11", Deflate{ServerMaxWindowBits: 10}, "declined", ErrExtensionAnswer)
	f("permessage-deflate, permessage-deflate", offer, "declined", ErrExtensionAnswer)
	f("x-other", offer, "declined", ErrExtensionAnswer)
	f("permessage-deflate; foo", offer, "declined", ErrExtension)
	f("permessage-deflate; client_no_context_takeover; client_no_context_takeover", offer, "declined", ErrExtension)
}

// stdDeflate compresses msg with the standard library's flate, as a
// peer would, the tail cut (RFC 7692 section 7.2.1).
func stdDeflate(t testing.TB, msg []byte) []byte {
	var b bytes.Buffer
	w, _ := stdflate.NewWriter(&b, stdflate.BestCompression)
	w.Write(msg)
	w.Flush()
	out := b.Bytes()
	if !bytes.HasSuffix(out, []byte{0, 0, 0xff, 0xff}) {
		t.Fatalf("no sync flush tail: % x", out)
	}
	return out[:len(out)-4]
}

// compressedFrame is a frame (final or not) with RSV1 set.
func compressedFrame(dst []byte, op Opcode, fin bool, payload []byte, m Mask) []byte {
	at := len(dst)
	dst = frame(dst, op, fin, string(payload), m)
	dst[at] |= rsv1
	return dst
}

// readDeflate reads stream as role with permessage-deflate agreed as d,
// returning the messages (a close frame as "close:CODE") and the error
// that ended it.
func readDeflate(stream []byte, role Role, max int, d Deflate) ([]string, error) {
	var rd Reader
	rd.Reset(bytes.NewReader(stream), role, max)
	rd.SetDeflate(d)
	var got []string
	for {
		op, p, err := rd.Next()
		if err != nil {
			return got, err
		}
		s := opName(op) + ":" + string(p)
		if op == OpClose {
			code, _ := ParseClose(p)
			s = "close:" + strconv.Itoa(code)
		}
		got = append(got, s)
	}
}

// TestReaderDeflate: compressed messages, whole or in fragments, beside
// uncompressed ones, and the Autobahn-style failures (section 12 and 13
// of Autobahn|Testsuite, RFC 7692 section 6): RSV1 on control and
// continuation frames, RSV1 without the extension, a stream that does not
// inflate, a bomb past the limit, bad UTF-8 inside.
func TestReaderDeflate(t *testing.T) {
	m := MaskWith(0x01020304)
	msg := []byte(strings.Repeat(`{"jsonrpc":"2.0","result":"0x00000000000000000000000000000000"}`, 20))
	z := stdDeflate(t, msg)
	on := Deflate{}
	f := func(name string, stream []byte, d *Deflate, max int, want []string, wantErr error) {
		t.Helper()
		var got []string
		var err error
		if d == nil {
			got, err = readAll(bytes.NewReader(stream), Server, max)
		} else {
			got, err = readDeflate(stream, Server, max, *d)
		}
		if list(got) != list(want) || !sameErr(err, wantErr) {
			t.Errorf("%s: got %q, %v; want %q, %v", name, got, err, want, wantErr)
		}
	}
	text := "text:" + string(msg)
	f("whole", join(compressedFrame(nil, OpText, true, z, m), frame(nil, OpText, true, "plain", m)), &on, 0,
		[]string{text, "text:plain"}, io.EOF)
	f("fragments", join(compressedFrame(nil, OpText, false, z[:5], m), frame(nil, OpPing, true, "p", m),
		frame(nil, OpContinuation, false, string(z[5:9]), m), frame(nil, OpContinuation, true, string(z[9:]), m)),
		&on, 0, []string{"ping:p", text}, io.EOF)
	f("empty message", compressedFrame(nil, OpBinary, true, []byte{0}, m), &on, 0, []string{"binary:"}, io.EOF)
	f("RSV1 on a ping", compressedFrame(nil, OpPing, true, nil, m), &on, 0, nil, ErrCompressedControl)
	f("RSV1 on a close", compressedFrame(nil, OpClose, true, nil, m), &on, 0, nil, ErrCompressedControl)
	f("RSV1 on a continuation", join(frame(nil, OpText, false, "a", m), compressedFrame(nil, OpContinuation, true, z, m)),
		&on, 0, nil, ErrCompressedContinuation)
	f("RSV1 without the extension", compressedFrame(nil, OpText, true, z, m), nil, 0, nil, ErrReserved)
	rsv2 := frame(nil, OpText, true, "a", m)
	rsv2[0] |= 0x20
	f("RSV2 with the extension", rsv2, &on, 0, nil, ErrReserved)
	f("not deflate", compressedFrame(nil, OpText, true, []byte{0xff, 0xff, 0xff, 0xff, 0xff}, m), &on, 0, nil, ErrInflate)
	f("cut short", compressedFrame(nil, OpText, true, z[:len(z)/2], m), &on, 0, nil, ErrInflate)
	bomb := stdDeflate(t, make([]byte, 1<<20)) // 1 MiB of zeros: about 1 KiB
	f("bomb", compressedFrame(nil, OpBinary, true, bomb, m), &on, 64<<10, nil, &TooLargeError{Limit: 64 << 10})
	a100 := strings.Repeat("a", 100)
	f("at the limit", compressedFrame(nil, OpBinary, true, stdDeflate(t, []byte(a100)), m), &on, 100,
		[]string{"binary:" + a100}, io.EOF)
	f("past the limit", compressedFrame(nil, OpBinary, true, stdDeflate(t, []byte(a100+"a")), m), &on, 100,
		nil, &TooLargeError{Limit: 100})
	f("bad UTF-8", compressedFrame(nil, OpText, true, stdDeflate(t, []byte("ok\xffno")), m), &on, 0, nil, &UTF8Error{Offset: 2})
	f("cut UTF-8", compressedFrame(nil, OpText, true, stdDeflate(t, []byte("ok\xe2\x82")), m), &on, 0, nil, &UTF8Error{Offset: 2})
	f("binary not checked", compressedFrame(nil, OpBinary, true, stdDeflate(t, []byte("\xff")), m), &on, 0,
		[]string{"binary:\xff"}, io.EOF)
	f("final block inside", compressedFrame(nil, OpText, true, finalDeflate(msg), m), &on, 0, []string{text}, io.EOF)
}

// finalDeflate compresses msg ending with a final block (BFINAL set),
// which a sender may do (RFC 7692 section 7.2.3.5).
func finalDeflate(msg []byte) []byte {
	var b bytes.Buffer
	w, _ := stdflate.NewWriter(&b, stdflate.BestSpeed)
	w.Write(msg)
	w.Close()
	return b.Bytes()
}

func TestCloseCode(t *testing.T) {
	f := func(err error, want int) {
		t.Helper()
		if got := CloseCode(err); got != want {
			t.Errorf("CloseCode(%v) = %d, want %d", err, got, want)
		}
	}
	f(ErrCompressedControl, CloseProtocolError)
	f(ErrCompressedContinuation, CloseProtocolError)
	f(ErrReserved, CloseProtocolError)
	f(ErrInflate, CloseInvalidData)
	f(&UTF8Error{}, CloseInvalidData)
	f(&TooLargeError{Limit: 1}, CloseTooBig)
	f(io.EOF, 0)
}

// TestCompressor: messages at or above the threshold go compressed (RSV1)
// and read back the same, smaller ones and those compression does not
// shrink go plain; with takeover, the window carries over.
func TestCompressor(t *testing.T) {
	long := []byte(strings.Repeat(`{"address":"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed","removed":false},`, 40))
	f := func(name string, d Deflate, min int, msgs ...[]byte) (sizes []int) {
		t.Helper()
		var c Compressor
		defer c.Release()
		c.Reset(d, Server, min, false)
		var stream []byte
		var want []string
		for _, msg := range msgs {
			at := len(stream)
			stream = c.AppendMessage(stream, OpText, msg, Mask{})
			compressed := stream[at]&rsv1 != 0
			if wantC := len(msg) >= min && min >= 0 && len(msg) > 100; compressed != wantC {
				t.Errorf("%s: a message of %d bytes compressed %v, want %v", name, len(msg), compressed, wantC)
			}
			sizes = append(sizes, len(stream)-at)
			want = append(want, "text:"+string(msg))
		}
		got, err := readDeflate(stream, Client, 0, d)
		if list(got) != list(want) || err != io.EOF {
			t.Errorf("%s: read back %.80q, %v", name, got, err)
		}
		return sizes
	}
	noCT := Deflate{ServerNoContextTakeover: true, ClientNoContextTakeover: true}
	f("no takeover", noCT, 1024, long, long[:1023], long[:1024], []byte("{}"))
	f("off", noCT, -1, long, long[:1024])
	f("threshold 0", noCT, 0, long, []byte("ab"))
	sizes := f("takeover", Deflate{}, 1024, long, long, long[:1023], long)
	if sizes[1] >= sizes[0]/2 {
		t.Errorf("takeover: the second copy took %d bytes, the first %d: no context kept?", sizes[1], sizes[0])
	}
	f("window 9", Deflate{ServerMaxWindowBits: 9}, 100, long, long)
	f("window 8, no takeover", Deflate{ServerMaxWindowBits: 8, ServerNoContextTakeover: true}, 100, long, long)
	// A peer with a window of 9 bits reads with 512 bytes of history.
	got, err := readDeflate(compressedFrame(nil, OpText, true, stdDeflate(t, long), Mask{}), Client, 0,
		Deflate{ServerMaxWindowBits: 9})
	if len(got) != 1 || err != io.EOF {
		t.Errorf("window 9 from the standard library: %q, %v", got, err)
	}
}

// TestCompressorEndFrame: EndFrame frames in place with the room a server
// (2 bytes) and a client (MaxHeaderLen) reserve, masked or not.
func TestCompressorEndFrame(t *testing.T) {
	var c Compressor
	c.Reset(Deflate{ServerNoContextTakeover: true, ClientNoContextTakeover: true}, Client, 1024, false)
	for _, n := range []int{10, 125, 126, 1023, 1024, 70000} {
		msg := bytes.Repeat([]byte("a1"), n/2+1)[:n]
		for _, room := range []int{2, MaxHeaderLen} {
			for _, m := range []Mask{{}, MaskWith(0xdeadbeef)} {
				b := append(append([]byte("prefix"), make([]byte, room)...), msg...)
				b = c.EndFrame(b, 6, 6+room, OpText, m)
				role := Client
				if m.on {
					role = Server
				}
				got, err := readDeflate(b[6:], role, 0, Deflate{})
				if string(b[:6]) != "prefix" || len(got) != 1 || got[0] != "text:"+string(msg) || err != io.EOF {
					t.Errorf("n %d room %d mask %v: %.40q, %v", n, room, m.on, got, err)
				}
			}
		}
	}
}

// TestCompressorConcurrent: without takeover a Compressor serves several
// goroutines at once (run with -race).
func TestCompressorConcurrent(t *testing.T) {
	var c Compressor
	c.Reset(Deflate{ServerNoContextTakeover: true}, Server, 16, false)
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			msg := []byte(strings.Repeat("message "+strconv.Itoa(g)+" ", 50))
			var b []byte
			for range 50 {
				b = c.AppendMessage(b[:0], OpText, msg, Mask{})
				got, err := readDeflate(b, Client, 0, Deflate{ServerNoContextTakeover: true})
				if len(got) != 1 || got[0] != "text:"+string(msg) || err != io.EOF {
					errs <- errors.New("goroutine " + strconv.Itoa(g) + ": bad round trip")
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// FuzzDeflate: any payload marked compressed never makes the Reader panic
// or hand out more than its limit; any messages compressed by a
// Compressor, with or without takeover and cut into fragments, read back
// as they were.
func FuzzDeflate(f *testing.F) {
	f.Add([]byte("hello hello hello hello"), []byte{0xff, 0x00}, uint8(3), true)
	f.Add([]byte(`{"jsonrpc":"2.0","result":"0x0000000000000000"}`), stdDeflate(f, []byte("abc")), uint8(0), false)
	f.Add(make([]byte, 700), stdDeflate(f, make([]byte, 5000)), uint8(1), true)
	f.Fuzz(func(t *testing.T, msg, payload []byte, cut uint8, takeover bool) {
		const limit = 1000
		d := Deflate{ServerNoContextTakeover: !takeover}
		// Arbitrary data with RSV1 set.
		got, err := readDeflate(compressedFrame(nil, OpBinary, true, payload, Mask{}), Client, limit, d)
		for _, g := range got {
			if len(g) > limit+len("binary:") {
				t.Fatalf("handed out %d bytes, limit %d", len(g), limit)
			}
		}
		if err == nil {
			t.Fatal("no error at the end of the stream")
		}
		// Compressed messages, twice each (the second with context when
		// takeover), the second cut into fragments at cut.
		var c Compressor
		defer c.Release()
		c.Reset(d, Server, 0, false)
		var stream []byte
		stream = c.AppendMessage(stream, OpBinary, msg, Mask{})
		one := c.AppendMessage(nil, OpBinary, msg, Mask{})
		hdr, _ := frameHeader(one)
		p := one[hdr:]
		at := min(int(cut), len(p))
		first := AppendHeader(nil, OpBinary, false, at, Mask{})
		first[0] |= one[0] & rsv1
		stream = append(append(stream, first...), p[:at]...)
		stream = AppendFrame(stream, OpContinuation, p[at:], Mask{})
		got, err = readDeflate(stream, Client, 0, d)
		want := "binary:" + string(msg)
		if len(got) != 2 || got[0] != want || got[1] != want || err != io.EOF {
			t.Fatalf("round trip of %q: %q, %v", msg, got, err)
		}
	})
}
