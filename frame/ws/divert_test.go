package ws

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// testSink records a diverted message.
type testSink struct {
	b        []byte
	ends     int
	complete bool
}

func (s *testSink) Write(p []byte) { s.b = append(s.b, p...) }
func (s *testSink) End(complete bool) {
	s.ends++
	s.complete = complete
}

// TestDivert: a message over the limit, in one frame or in fragments
// (with a ping between them, and small first fragments joined before the
// limit is crossed), goes to the divert's sink as it is read, in any read
// sizes; the messages around it are handed out; a cut-off one ends the
// sink incomplete; a divert that declines leaves the *TooLargeError; a
// bad UTF-8 byte in a diverted text message fails it.
func TestDivert(t *testing.T) {
	const limit = 1000
	big := strings.Repeat("a", 5000)
	f := func(name string, stream []byte, want []string, wantSink string, complete bool, wantErr error) {
		t.Helper()
		for _, sizes := range [][]byte{nil, {1}, {3, 200, 7, 255}} {
			var rd Reader
			rd.Reset(&chunkReader{b: stream, sizes: sizes}, Client, limit)
			var s testSink
			var heads []string
			rd.SetDivert(func(head []byte) Sink {
				heads = append(heads, string(head))
				if strings.HasPrefix(string(head), "no") {
					return nil
				}
				return &s
			})
			var got []string
			var err error
			for {
				var op Opcode
				var p []byte
				if op, p, err = rd.Next(); err != nil {
					break
				}
				got = append(got, opName(op)+":"+string(p))
			}
			gotSink := string(s.b)
			if prefixOnly := wantErr != nil && errors.As(wantErr, new(*UTF8Error)); prefixOnly && strings.HasPrefix(wantSink, gotSink) {
				gotSink = wantSink // the piece with the bad byte is not passed on
			}
			if list(got) != list(want) || gotSink != wantSink || !sameErr(err, wantErr) ||
				wantSink != "" && (s.ends != 1 || s.complete != complete) {
				t.Errorf("%s %v: got %q, sink %d bytes (ends %d complete %v), err %v; want %q, %d bytes, %v",
					name, sizes, got, len(s.b), s.ends, s.complete, err, want, len(wantSink), wantErr)
			}
			if wantSink != "" && (len(heads) != 1 || !strings.HasPrefix(wantSink, heads[0]) || len(heads[0]) != min(len(wantSink), headWant)) {
				t.Errorf("%s: heads %q", name, heads)
			}
		}
	}
	small := frame(nil, OpText, true, "small", Mask{})
	f("one frame", join(small, frame(nil, OpText, true, big, Mask{}), small),
		[]string{"text:small", "text:small"}, big, true, io.EOF)
	f("fragments", join(frame(nil, OpText, false, big[:10], Mask{}), frame(nil, OpContinuation, false, big[10:900], Mask{}),
		frame(nil, OpPing, true, "p", Mask{}), frame(nil, OpContinuation, false, big[900:3000], Mask{}),
		frame(nil, OpContinuation, true, big[3000:], Mask{}), small),
		[]string{"ping:p", "text:small"}, big, true, io.EOF)
	f("cut", join(small, frame(nil, OpText, false, big[:2000], Mask{}), frame(nil, OpContinuation, false, big[2000:], Mask{})),
		[]string{"text:small"}, big, false, io.ErrUnexpectedEOF)
	f("close between", join(frame(nil, OpText, false, big[:2000], Mask{}), AppendClose(nil, 1011, "", Mask{})),
		[]string{"close:\x03\xf3"}, big[:2000], false, ErrClosed)
	f("declined", join(small, frame(nil, OpText, true, "no"+big, Mask{})),
		[]string{"text:small"}, "", false, &TooLargeError{Limit: limit})
	f("bad utf-8", join(frame(nil, OpText, true, big+"\xff", Mask{})), nil, big, false, &UTF8Error{Offset: 5000})
	// Masked frames (the Server role) are never diverted.
	var rd Reader
	rd.Reset(&replayReader{b: frame(nil, OpText, true, big, MaskWith(7))}, Server, limit)
	rd.SetDivert(func([]byte) Sink { t.Fatal("divert of a masked frame"); return nil })
	if _, _, err := rd.Next(); !errors.As(err, new(*TooLargeError)) {
		t.Fatalf("masked: %v", err)
	}
}
