package nethttp

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame/ws"
	"github.com/jetrpc/jetrpc/netserver"
)

// deflateWS upgrades a bare connection to url offering the extensions
// header ext (empty: none) and returns the server's answer to it, a
// reader of the server's frames set up as agreed, the connection and a
// tap that records every byte the server sent after its 101 answer.
func deflateWS(t *testing.T, url, ext string) (string, *ws.Reader, net.Conn, *tap) {
	t.Helper()
	nc, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "ws://"), "/ws"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(testTimeout))
	req := "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
	if ext != "" {
		req += "Sec-WebSocket-Extensions: " + ext + "\r\n"
	}
	if _, err := nc.Write([]byte(req + "\r\n")); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v, %v", resp, err)
	}
	answer := resp.Header.Get("Sec-WebSocket-Extensions")
	tp := &tap{r: br}
	rd := new(ws.Reader)
	rd.Reset(tp, ws.Client, 0)
	if answer != "" {
		d, ok, err := ws.ParseDeflateAnswer(answer, ws.Deflate{ClientMaxWindowBits: 15})
		if !ok || err != nil {
			t.Fatalf("answer %q: %v", answer, err)
		}
		rd.SetDeflate(d)
	}
	return answer, rd, nc, tp
}

// tap records what is read through it.
type tap struct {
	r   io.Reader
	got []byte
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.got = append(t.got, p[:n]...)
	return n, err
}

// flags returns, for each frame in t.got, whether it has RSV1, and the
// number of bytes the frames took.
func (t *tap) flags() (rsv1 []bool, wire int) {
	b := t.got
	for len(b) >= 2 {
		hdr, n := 2, int(b[1]&0x7f)
		switch n {
		case 126:
			hdr, n = 4, int(binary.BigEndian.Uint16(b[2:]))
		case 127:
			hdr, n = 10, int(binary.BigEndian.Uint64(b[2:]))
		}
		rsv1 = append(rsv1, b[0]&0x40 != 0)
		wire += hdr + n
		b = b[hdr+n:]
	}
	t.got = t.got[:0]
	return rsv1, wire
}

// TestWSDeflateNegotiation: the server answers the first well-formed
// permessage-deflate offer, always without context takeover, honouring a
// smaller window asked for; with CompressMin negative it answers none.
func TestWSDeflateNegotiation(t *testing.T) {
	_, url := startWS(t, nil)
	const noCT = "permessage-deflate; server_no_context_takeover; client_no_context_takeover"
	f := func(url, offer, want string) {
		t.Helper()
		if got, _, _, _ := deflateWS(t, url, offer); got != want {
			t.Errorf("offer %q: answer %q, want %q", offer, got, want)
		}
	}
	f(url, "", "")
	f(url, "x-webkit-deflate-frame", "")
	f(url, "permessage-deflate", noCT)
	f(url, "permessage-deflate; client_max_window_bits", noCT)
	f(url, "permessage-deflate; server_no_context_takeover", noCT)
	f(url, "permessage-deflate; server_max_window_bits=10", noCT+"; server_max_window_bits=10")
	f(url, "permessage-deflate; server_max_window_bits=7, permessage-deflate; client_no_context_takeover", noCT)
	f(url, "permessage-deflate; unknown=1", "")
}

// TestWSDeflateOff: with CompressMin negative no offer is answered.
func TestWSDeflateOff(t *testing.T) {
	_, url := startWS(t, &netserver.Options{CompressMin: -1})
	if got, _, _, _ := deflateWS(t, url, "permessage-deflate"); got != "" {
		t.Errorf("CompressMin -1: answer %q, want none", got)
	}
}

// TestWSDeflate: calls, batches and server notifications of at least
// CompressMin bytes are compressed both ways, smaller ones are not; the
// answers read the same as uncompressed ones; a compressed message in
// fragments is joined.
func TestWSDeflate(t *testing.T) {
	big := strings.Repeat("0x000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", 20)
	notifier := withMethod(dispatch.Method{Name: "notify_me", Handler: dispatch.HandlerFunc(
		func(ctx context.Context, params, dst []byte) ([]byte, error) {
			err := dispatch.PeerOf(ctx).NotifyRaw(ctx, "logs", []byte(`["`+big+`"]`))
			return append(dst, "true"...), err
		})})
	_, url := startWS(t, &netserver.Options{CompressMin: 512}, notifier)
	for _, window := range []string{"", "; server_max_window_bits=9"} {
		_, rd, nc, tp := deflateWS(t, url, "permessage-deflate"+window)
		var zip ws.Compressor
		zip.Reset(ws.Deflate{ClientNoContextTakeover: true}, ws.Client, 512, false)
		m := ws.MaskWith(0x11223344)
		send := func(msg string) (compressed bool) {
			t.Helper()
			b := zip.AppendMessage(nil, ws.OpText, []byte(msg), m)
			if _, err := nc.Write(b); err != nil {
				t.Fatal(err)
			}
			return b[0]&0x40 != 0
		}
		f := func(name, msg string, wantRSV1 []bool, want ...string) {
			t.Helper()
			send(msg)
			for i, w := range want {
				_, p, err := rd.Next()
				if err != nil || string(p) != w {
					t.Fatalf("%s%s: message %d: %.80q, %v; want %.80q", name, window, i, p, err, w)
				}
			}
			rsv1, wire := tp.flags()
			if !equalBools(rsv1, wantRSV1) {
				t.Errorf("%s%s: RSV1 of the frames %v, want %v", name, window, rsv1, wantRSV1)
			}
			if size := len(strings.Join(want, "")); wantRSV1[0] && wire*3 > size {
				t.Errorf("%s%s: %d bytes on the wire for %d of messages", name, window, wire, size)
			}
		}
		call := echoCall("1", big)
		if !send(call) {
			t.Fatal("the call went uncompressed")
		}
		if _, p, err := rd.Next(); err != nil || string(p) != `{"jsonrpc":"2.0","id":1,"result":["`+big+`"]}` {
			t.Fatalf("compressed call: %.80q, %v", p, err)
		}
		tp.flags()
		f("big call", call, []bool{true}, `{"jsonrpc":"2.0","id":1,"result":["`+big+`"]}`)
		f("small call", echoCall("2", "hi"), []bool{false}, `{"jsonrpc":"2.0","id":2,"result":["hi"]}`)
		f("batch", "["+echoCall("3", big[:300])+","+echoCall("4", big[:300])+"]", []bool{true},
			`[{"jsonrpc":"2.0","id":3,"result":["`+big[:300]+`"]},{"jsonrpc":"2.0","id":4,"result":["`+big[:300]+`"]}]`)
		f("notification", `{"jsonrpc":"2.0","method":"notify_me","id":5}`, []bool{true, false},
			`{"jsonrpc":"2.0","method":"logs","params":["`+big+`"]}`, `{"jsonrpc":"2.0","id":5,"result":true}`)

		// A compressed message in three fragments, a ping among them.
		z := zip.AppendMessage(nil, ws.OpText, []byte(echoCall("6", big)), ws.Mask{})
		hdr := 2
		if z[1] == 126 { // a 16-bit length
			hdr = 4
		}
		payload := z[hdr:]
		frags := clientFrame(nil, ws.OpText, false, string(payload[:10]))
		frags[0] |= 0x40
		frags = clientFrame(frags, ws.OpPing, true, "p")
		frags = clientFrame(frags, ws.OpContinuation, false, string(payload[10:20]))
		frags = clientFrame(frags, ws.OpContinuation, true, string(payload[20:]))
		nc.Write(frags)
		if op, p, err := rd.Next(); op != ws.OpPong || string(p) != "p" || err != nil {
			t.Fatalf("fragments: %v %q %v, want the pong", op, p, err)
		}
		if _, p, err := rd.Next(); err != nil || string(p) != `{"jsonrpc":"2.0","id":6,"result":["`+big+`"]}` {
			t.Fatalf("fragments: %.80q, %v", p, err)
		}
		zip.Release()
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWSDeflateThreshold: a response just below CompressMin goes plain,
// one at it compressed (the threshold counts the JSON-RPC response).
func TestWSDeflateThreshold(t *testing.T) {
	_, url := startWS(t, &netserver.Options{CompressMin: 1024})
	_, rd, nc, tp := deflateWS(t, url, "permessage-deflate")
	base := len(`{"jsonrpc":"2.0","id":1,"result":[""]}`)
	for _, n := range []int{1023, 1024, 1025} {
		s := strings.Repeat("a", n-base)
		nc.Write(clientFrame(nil, ws.OpText, true, echoCall("1", s)))
		if _, p, err := rd.Next(); err != nil || len(p) != n {
			t.Fatalf("response of %d bytes: %d bytes, %v", n, len(p), err)
		}
		if rsv1, _ := tp.flags(); len(rsv1) != 1 || rsv1[0] != (n >= 1024) {
			t.Errorf("response of %d bytes: RSV1 %v, want %v", n, rsv1, n >= 1024)
		}
	}
}

// TestWSDeflateErrors: the Autobahn-style failures of compressed frames
// close the connection with their code: RSV1 on a control frame and on a
// continuation frame 1002, a stream that does not inflate 1007, a bomb
// past MaxMessage 1009; a call answered before is still answered. Without
// the extension, RSV1 is a protocol error too.
func TestWSDeflateErrors(t *testing.T) {
	_, url := startWS(t, &netserver.Options{MaxMessage: 64 << 10})
	first := clientFrame(nil, ws.OpText, true, echoCall("0", "ok"))
	answer := `text:{"jsonrpc":"2.0","id":0,"result":["ok"]}`
	f := func(name, ext string, frames []byte, want ...string) {
		t.Helper()
		_, rd, nc, _ := deflateWS(t, url, ext)
		nc.Write(append(first, frames...))
		if got := serverFrames(rd); strings.Join(got, "|") != strings.Join(append([]string{answer}, want...), "|") {
			t.Errorf("%s: the server sent %q, want %q", name, got, want)
		}
	}
	rsv := func(b []byte) []byte { b[0] |= 0x40; return b }
	var zip ws.Compressor
	zip.Reset(ws.Deflate{}, ws.Client, 0, true)
	m := ws.MaskWith(0x11223344)
	const pmd = "permessage-deflate"
	f("RSV1 on a ping", pmd, rsv(clientFrame(nil, ws.OpPing, true, "p")), "close:1002")
	f("RSV1 on a close", pmd, rsv(clientFrame(nil, ws.OpClose, true, "")), "close:1002")
	f("RSV1 on a continuation", pmd, append(clientFrame(nil, ws.OpText, false, "[1"),
		rsv(clientFrame(nil, ws.OpContinuation, true, "]"))...), "close:1002")
	f("RSV1 without the extension", "", zip.AppendMessage(nil, ws.OpText, []byte(echoCall("1", strings.Repeat("x", 500))), m),
		"close:1002")
	f("not deflate", pmd, rsv(clientFrame(nil, ws.OpText, true, "\xff\xff\xff\xff\xff")), "close:1007")
	bomb := zip.AppendMessage(nil, ws.OpBinary, make([]byte, 1<<20), m) // 1 MiB of zeros
	if len(bomb) > 2<<10 {
		t.Fatalf("the bomb takes %d bytes", len(bomb))
	}
	f("bomb", pmd, bomb, "close:1009")
	f("compressed bad UTF-8", pmd, zip.AppendMessage(nil, ws.OpText, []byte(echoCall("1", "a\xffb")), m), "close:1007")
}
