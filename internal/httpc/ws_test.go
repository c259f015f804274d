package httpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame/ws"
)

// TestWebSocketDeflateHandshake: the offer goes out; the server's answer
// gives the agreement, or none when it declines; an answer that does not
// fit the offer, or an extension not offered, fails the handshake.
func TestWebSocketDeflateHandshake(t *testing.T) {
	f := func(offer *ws.Deflate, answer string, want string, wantErr bool) {
		t.Helper()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		sent := make(chan string, 1)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				sent <- ""
				return
			}
			defer c.Close()
			r := bufio.NewReader(c)
			key, ext := "", ""
			for {
				line, err := r.ReadString('\n')
				if err != nil || line == "\r\n" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Sec-WebSocket-Key: "); ok {
					key = strings.TrimSpace(v)
				}
				if v, ok := strings.CutPrefix(line, "Sec-WebSocket-Extensions: "); ok {
					ext = strings.TrimSpace(v)
				}
			}
			sent <- ext
			resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
				sha1Accept(key) + "\r\n"
			for _, a := range strings.Split(answer, "\n") {
				if a != "" {
					resp += "Sec-WebSocket-Extensions: " + a + "\r\n"
				}
			}
			io.WriteString(c, resp+"\r\n")
			io.Copy(io.Discard, r)
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		nc, d, err := DialWebSocket(ctx, "ws://"+ln.Addr().String()+"/ws", WSOptions{Deflate: offer})
		if nc != nil {
			nc.Close()
		}
		wantOffer := ""
		if offer != nil {
			wantOffer = string(ws.AppendDeflate(nil, *offer, true))
		}
		if got := <-sent; got != wantOffer {
			t.Errorf("offer sent %q, want %q", got, wantOffer)
		}
		got := "none"
		if d != nil {
			got = string(ws.AppendDeflate(nil, *d, false))
		}
		if got != want || (err != nil) != wantErr || err != nil && !errors.Is(err, ErrBadHandshake) {
			t.Errorf("answer %q: %s, %v; want %s (error %v)", answer, got, err, want, wantErr)
		}
	}
	offer := &ws.Deflate{ClientNoContextTakeover: true, ClientMaxWindowBits: 15}
	f(offer, "permessage-deflate; server_no_context_takeover", "permessage-deflate; server_no_context_takeover", false)
	f(offer, "permessage-deflate; client_max_window_bits=10", "permessage-deflate; client_max_window_bits=10", false)
	f(offer, "", "none", false)
	f(offer, "permessage-deflate; foo", "none", true)
	f(offer, "permessage-deflate\npermessage-deflate", "none", true) // twice, on two lines
	f(offer, "x-other", "none", true)
	f(nil, "permessage-deflate", "none", true) // not offered
	f(nil, "", "none", false)
}
