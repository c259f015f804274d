package client_test

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/frame/ws"
)

// frameTap records the bytes read through it.
type frameTap struct {
	r   io.Reader
	got []byte
}

func (t *frameTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.got = append(t.got, p[:n]...)
	return n, err
}

// rsv1 returns whether each frame recorded has RSV1, and forgets them.
func (t *frameTap) rsv1() []bool {
	var out []bool
	b := t.got
	for len(b) >= 2 {
		hdr, n := 2, int(b[1]&0x7f)
		switch n {
		case 126:
			hdr, n = 4, int(binary.BigEndian.Uint16(b[2:]))
		case 127:
			hdr, n = 10, int(binary.BigEndian.Uint64(b[2:]))
		}
		if b[1]&0x80 != 0 {
			hdr += 4
		}
		out = append(out, b[0]&0x40 != 0)
		b = b[min(hdr+n, len(b)):]
	}
	t.got = t.got[:0]
	return out
}

// deflatePeer is a WebSocket peer on a bare connection that answers the
// client's Sec-WebSocket-Extensions offer (sent on offered) with answer
// (empty: none), then runs serve with the connection, a reader set up as
// agreed over a tap of the client's frames, and the agreement.
func deflatePeer(t *testing.T, answer string, offered chan<- string,
	serve func(nc net.Conn, rd *ws.Reader, tap *frameTap, d ws.Deflate)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(testTimeout))
		br := bufio.NewReader(nc)
		req, err := http.ReadRequest(br)
		if err != nil {
			t.Errorf("peer: %v", err)
			return
		}
		offered <- req.Header.Get("Sec-WebSocket-Extensions")
		h := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		out := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
			base64.StdEncoding.EncodeToString(h[:]) + "\r\n"
		var d ws.Deflate
		if answer != "" {
			out += "Sec-WebSocket-Extensions: " + answer + "\r\n"
			d, _, _ = ws.ParseDeflateAnswer(answer, ws.Deflate{ClientMaxWindowBits: 15})
		}
		if _, err := nc.Write([]byte(out + "\r\n")); err != nil {
			return
		}
		tap := &frameTap{r: br}
		var rd ws.Reader
		rd.Reset(tap, ws.Server, 0)
		if answer != "" {
			rd.SetDeflate(d)
		}
		serve(nc, &rd, tap, d)
	}()
	return "ws://" + ln.Addr().String() + "/ws"
}

var bigHex = strings.Repeat("0x000000000000000000000000c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", 20)

// TestWSDeflateClient: the client offers permessage-deflate without
// context of its own; it compresses calls of at least CompressMin bytes
// and not smaller ones, and reads a server that keeps context between
// its messages (Node's ws and browsers do by default).
func TestWSDeflateClient(t *testing.T) {
	checkGoroutines(t)
	offered := make(chan string, 1)
	got := make(chan []bool, 1)
	url := deflatePeer(t, "permessage-deflate", offered, func(nc net.Conn, rd *ws.Reader, tap *frameTap, d ws.Deflate) {
		var zip ws.Compressor // the server's side, with context takeover
		zip.Reset(d, ws.Server, 0, false)
		defer zip.Release()
		for range 3 {
			_, p, err := rd.Next()
			if err != nil {
				t.Errorf("peer: %v", err)
				return
			}
			id := requestID(t, string(p))
			nc.Write(zip.AppendMessage(nil, ws.OpText, []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":"`+bigHex+`"}`), ws.Mask{}))
		}
		got <- tap.rsv1()
		nextFrame(t, rd) // Close's
	})
	c := dialWS(t, url, &client.Options{CompressMin: 512})
	if o := <-offered; o != "permessage-deflate; client_no_context_takeover; client_max_window_bits" {
		t.Errorf("offer %q", o)
	}
	for _, params := range []string{`["` + bigHex + `"]`, `[1]`, `["` + bigHex + `"]`} {
		res, err := c.CallRaw(context.Background(), nil, "m", []byte(params))
		if err != nil || string(res) != `"`+bigHex+`"` {
			t.Fatalf("call: %.40s, %v", res, err)
		}
	}
	if r := <-got; len(r) != 3 || !r[0] || r[1] || !r[2] {
		t.Errorf("RSV1 of the client's frames: %v, want true, false, true", r)
	}
}

// TestWSDeflateOff: CompressMin negative offers nothing.
func TestWSDeflateOff(t *testing.T) {
	checkGoroutines(t)
	offered := make(chan string, 1)
	url := deflatePeer(t, "", offered, func(nc net.Conn, rd *ws.Reader, tap *frameTap, d ws.Deflate) {
		nextFrame(t, rd)
	})
	c := dialWS(t, url, &client.Options{CompressMin: -1})
	if o := <-offered; o != "" {
		t.Errorf("offer %q, want none", o)
	}
	c.Close()
}

// TestWSDeflateBomb: a compressed message from the server that inflates
// past MaxMessage closes the connection with 1009; one that does not
// inflate with 1007.
func TestWSDeflateBomb(t *testing.T) {
	checkGoroutines(t)
	for _, c := range []struct {
		msg  []byte
		code string
	}{{append([]byte(`{"jsonrpc":"2.0","id":1,"result":"`), make([]byte, 1<<20)...), "close:1009"}, {nil, "close:1007"}} {
		offered := make(chan string, 1)
		got := make(chan string, 1)
		url := deflatePeer(t, "permessage-deflate; server_no_context_takeover", offered,
			func(nc net.Conn, rd *ws.Reader, tap *frameTap, d ws.Deflate) {
				nextFrame(t, rd) // the call
				var zip ws.Compressor
				zip.Reset(d, ws.Server, 0, true)
				b := []byte{0xc1, 5, 0xff, 0xff, 0xff, 0xff, 0xff} // RSV1, not deflate
				if c.msg != nil {
					b = zip.AppendMessage(nil, ws.OpText, c.msg, ws.Mask{})
				}
				nc.Write(b)
				got <- nextFrame(t, rd)
			})
		cl := dialWS(t, url, &client.Options{MaxMessage: 64 << 10})
		<-offered
		if _, err := cl.CallRaw(context.Background(), nil, "m", nil); err == nil {
			t.Errorf("%s: the call succeeded", c.code)
		}
		if f := <-got; f != c.code {
			t.Errorf("the client sent %s, want %s", f, c.code)
		}
	}
}

// TestWSDeflateGorilla: the client against the websocket library (gorilla's
// API, as fasthttp/websocket; go-ethereum's server uses gorilla) with
// compression on both ways.
func TestWSDeflateGorilla(t *testing.T) {
	checkGoroutines(t)
	var wg sync.WaitGroup
	up := websocket.Upgrader{EnableCompression: true}
	offered := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wg.Add(1)
		defer wg.Done()
		offered <- r.Header.Get("Sec-WebSocket-Extensions") // the library accepts any permessage-deflate offer
		wc, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer wc.Close()
		wc.EnableWriteCompression(true)
		wc.SetReadDeadline(time.Now().Add(testTimeout))
		for {
			_, msg, err := wc.ReadMessage()
			if err != nil {
				return
			}
			id := requestID(t, string(msg))
			wc.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":"`+bigHex+`"}`))
		}
	}))
	defer func() { srv.Close(); wg.Wait() }()
	c := dialWS(t, "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws", nil)
	if o := <-offered; !strings.HasPrefix(o, "permessage-deflate") {
		t.Fatalf("offer %q", o)
	}
	for range 3 {
		res, err := c.CallRaw(context.Background(), nil, "m", []byte(`["`+bigHex+`"]`))
		if err != nil || string(res) != `"`+bigHex+`"` {
			t.Fatalf("call: %.40s, %v", res, err)
		}
	}
	c.Close()
}
