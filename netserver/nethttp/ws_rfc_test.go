package nethttp

import (
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame/ws"
)

// The frame-level cases of RFC 6455 and of Autobahn|Testsuite's case
// families 6 (UTF-8) and 7 (close handling), against the server's /ws.

// invalidUTF8 holds one sequence of every kind RFC 3629 forbids.
var invalidUTF8 = []struct{ name, b string }{
	{"surrogate", "\xed\xa0\x80"},
	{"low surrogate", "\xed\xbf\xbf"},
	{"overlong 2", "\xc0\xaf"},
	{"overlong C1", "\xc1\xbf"},
	{"overlong 3", "\xe0\x80\xaf"},
	{"overlong 4", "\xf0\x80\x80\xaf"},
	{"truncated 2", "\xc3"},
	{"truncated 3", "\xe2\x82"},
	{"truncated 4", "\xf0\x9f\x98"},
	{"lone continuation", "\x80"},
	{"FE", "\xfe"},
	{"FF", "\xff"},
	{"above U+10FFFF", "\xf4\x90\x80\x80"},
	{"F5", "\xf5\x80\x80\x80"},
	{"5-byte form", "\xf8\x88\x80\x80\x80"},
	{"6-byte form", "\xfc\x84\x80\x80\x80\x80"},
}

// echoCall is a call of echo with s inside a string param.
func echoCall(id, s string) string {
	return `{"jsonrpc":"2.0","method":"echo","params":["` + s + `"],"id":` + id + `}`
}

// TestWSInvalidUTF8: a text message that is not UTF-8 fails the connection
// with 1007, in one frame, in fragments and before the rest of its frame
// has arrived (fail fast); a call answered before it is still answered.
func TestWSInvalidUTF8(t *testing.T) {
	_, url := startWS(t, nil)
	f := func(name string, frames []byte, want ...string) {
		t.Helper()
		_, rd := rawWS(t, url, frames)
		if got := serverFrames(rd); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: the server sent %q, want %q", name, got, want)
		}
	}
	for _, c := range invalidUTF8 {
		msg := echoCall("1", "a"+c.b+"z")
		f(c.name+"/one frame", clientFrame(nil, ws.OpText, true, msg), "close:1007")
		cut := strings.Index(msg, c.b) + 1 // the bad sequence is split too
		frags := clientFrame(nil, ws.OpText, false, msg[:cut])
		frags = clientFrame(frags, ws.OpContinuation, true, msg[cut:])
		f(c.name+"/fragmented", frags, "close:1007")
		first := clientFrame(nil, ws.OpText, true, echoCall("0", "ok"))
		f(c.name+"/after a call", append(first, clientFrame(nil, ws.OpText, true, msg)...),
			`text:{"jsonrpc":"2.0","id":0,"result":["ok"]}`, "close:1007")
	}
	// A binary message is the JSON decoder's to judge: -32700, and the
	// connection goes on.
	bin := clientFrame(nil, ws.OpBinary, true, echoCall("1", "\xff"))
	bin = append(bin, ws.AppendClose(nil, ws.CloseNormal, "", ws.MaskWith(5))...)
	_, rd := rawWS(t, url, bin)
	got := serverFrames(rd)
	if len(got) != 2 || !strings.Contains(got[0], "-32700") || got[1] != "close:1000" {
		t.Errorf("binary message with invalid UTF-8: %q, want -32700 then close 1000", got)
	}
}

// TestWSInvalidUTF8FailFast: the server fails the connection as soon as
// the bad bytes arrive, without the rest of the frame (Autobahn 6.4.x).
func TestWSInvalidUTF8FailFast(t *testing.T) {
	_, url := startWS(t, nil)
	for _, c := range invalidUTF8[:5] {
		msg := echoCall("1", "a"+c.b+"z")
		frame := clientFrame(nil, ws.OpText, true, msg+strings.Repeat(" ", 1000))
		part := frame[:len(frame)-900] // the bad bytes, but not the end of the frame
		nc, rd := rawWS(t, url, part)
		start := time.Now()
		got := serverFrames(rd)
		if strings.Join(got, "|") != "close:1007" {
			t.Errorf("%s: the server sent %q, want close 1007", c.name, got)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: failed after %v", c.name, d)
		}
		nc.Close()
	}
}

// TestWSValidUTF8Split: characters of 2, 3 and 4 bytes cut between
// fragments are joined and answered exactly.
func TestWSValidUTF8Split(t *testing.T) {
	_, url := startWS(t, nil)
	for _, s := range []string{"é", "€", "😀", "日本語", "\u0080\u07ff\u0800\uffff\U00010000\U0010ffff"} {
		msg := echoCall("7", "<"+s+">")
		at := strings.Index(msg, s)
		for cut := at + 1; cut < at+len(s); cut++ {
			frames := clientFrame(nil, ws.OpText, false, msg[:cut])
			frames = clientFrame(frames, ws.OpContinuation, true, msg[cut:])
			frames = append(frames, ws.AppendClose(nil, ws.CloseNormal, "", ws.MaskWith(9))...)
			_, rd := rawWS(t, url, frames)
			got := serverFrames(rd)
			want := []string{`text:{"jsonrpc":"2.0","id":7,"result":["<` + s + `>"]}`, "close:1000"}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%q cut at %d: %q, want %q", s, cut-at, got, want)
			}
		}
	}
}

// TestWSCallThenClose: calls followed by a close frame in the same write
// are answered, a slow one too, before the close is echoed.
func TestWSCallThenClose(t *testing.T) {
	_, url := startWS(t, nil)
	var b []byte
	b = clientFrame(b, ws.OpText, true, `{"jsonrpc":"2.0","method":"sleep","params":[100],"id":"slow"}`)
	b = clientFrame(b, ws.OpText, true, wsSubtract)
	b = append(b, ws.AppendClose(nil, ws.CloseNormal, "bye", ws.MaskWith(3))...)
	_, rd := rawWS(t, url, b)
	got := serverFrames(rd)
	want := []string{`text:{"jsonrpc":"2.0","id":1,"result":19}`, `text:{"jsonrpc":"2.0","id":"slow","result":100}`, "close:1000"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the server sent %q, want %q", got, want)
	}
	// A protocol error after a call: the answer computed, then 1002.
	b = clientFrame(nil, ws.OpText, true, wsSubtract)
	b = append(b, 0xc1, 0x80, 0, 0, 0, 0) // reserved bits
	_, rd = rawWS(t, url, b)
	got = serverFrames(rd)
	if len(got) != 2 || got[0] != want[0] || got[1] != "close:1002" {
		t.Errorf("call then reserved bits: %q, want the answer then close 1002", got)
	}
}
