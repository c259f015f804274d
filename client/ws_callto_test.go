package client_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/fasthttp/websocket"
	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/encode"
)

// TestCallToWebSocket: over WebSocket a result far over the client's
// MaxMessage (the server sends it in fragments) is written to the writer
// exact while other calls on the same client are answered; a small result
// and an error response too.
func TestCallToWebSocket(t *testing.T) {
	checkGoroutines(t)
	_, url := startWS(t, nil)
	c := dialWS(t, url, &client.Options{MaxMessage: 64 << 10})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	const n = 5_000_000
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for range 50 {
				out, err := c.CallRaw(ctx, nil, "subtract", []byte(`[5,3]`))
				if err != nil || string(out) != "2" {
					t.Errorf("subtract: %s %v", out, err)
					return
				}
			}
		})
	}
	for range 2 {
		var buf bytes.Buffer
		if err := c.CallTo(ctx, &buf, "blob", []byte(`[5000000]`)); err != nil {
			t.Fatal(err)
		}
		if buf.Len() != n+2 || buf.String() != `"`+strings.Repeat("x", n)+`"` {
			t.Fatalf("blob: %d bytes, %.40q", buf.Len(), buf.String())
		}
	}
	wg.Wait()
	var buf bytes.Buffer
	if err := c.CallTo(ctx, &buf, "subtract", []byte(`[5,3]`)); err != nil || buf.String() != "2" {
		t.Fatalf("small: %q %v", buf.String(), err)
	}
	buf.Reset()
	var re *encode.Error
	if err := c.CallTo(ctx, &buf, "blob", []byte(`[-1]`)); !errors.As(err, &re) || re.Code != -32602 || buf.Len() != 0 {
		t.Fatalf("error response: %v, wrote %q", err, buf.String())
	}
	if out, err := c.CallRaw(ctx, nil, "subtract", []byte(`[5,3]`)); err != nil || string(out) != "2" {
		t.Fatalf("after: %s %v", out, err)
	}
}

// TestCallToWebSocketCut: a result whose message the connection cuts off
// (fragments, then the connection ends) is ErrResultCut after what came
// was written.
func TestCallToWebSocketCut(t *testing.T) {
	checkGoroutines(t)
	url := wsPeer(t, func(wc *websocket.Conn) {
		_, msg, err := wc.ReadMessage()
		if err != nil {
			return
		}
		_, rest, _ := bytes.Cut(msg, []byte(`"id":`))
		id, _, _ := bytes.Cut(rest, []byte(","))
		id, _, _ = bytes.Cut(id, []byte("}"))
		w, err := wc.NextWriter(websocket.TextMessage)
		if err != nil {
			return
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":"`))
		w.Write(bytes.Repeat([]byte("x"), 200_000)) // flushed as fragments
		wc.UnderlyingConn().Close()
	})
	c := dialWS(t, url, &client.Options{MaxMessage: 1 << 10, CompressMin: -1})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var w countWriter
	if err := c.CallTo(ctx, &w, "blob", []byte(`[1]`)); !errors.Is(err, client.ErrResultCut) || w.n < 100_000 || w.other != 1 {
		t.Fatalf("got %v after %d bytes (%d not x)", err, w.n, w.other)
	}
}

// countWriter counts the bytes written and those other than x.
type countWriter struct{ n, other int }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	w.other += len(p) - bytes.Count(p, []byte("x"))
	return len(p), nil
}
