package netserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/streamtest"
	"github.com/jetrpc/jetrpc/netserver/internal/servertest"
)

// streamSetup registers the streaming handlers of internal/streamtest.
func streamSetup(e *dispatch.Engine) error {
	for _, m := range streamtest.Methods() {
		if err := e.RegisterMethod(m); err != nil {
			return err
		}
	}
	return nil
}

// TestStreamResultTCP: every streaming handler of the table, over each
// framing of a TCP connection, is answered one valid response with its
// id, and a call sent behind it on the same connection is answered too.
// NDJSON sends the result as it is produced; Content-Length and len32
// need the length first, so there it is held. A handler that fails after
// pieces went out leaves no complete line on NDJSON: the connection is
// closed; where it was held the call gets its error.
func TestStreamResultTCP(t *testing.T) {
	ts := startServer(t, nil, streamSetup)
	for _, kind := range framings {
		c := ts.dial(t, kind)
		for i, sc := range streamtest.Cases {
			if sc.Cut && kind == frame.NDJSON {
				continue
			}
			c.send(streamtest.Call(sc.Method, i+1))
			c.send(`{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":"after"}`)
			got := map[string][]byte{}
			for range 2 {
				raw := c.recv()
				var r struct{ ID json.RawMessage }
				json.Unmarshal(raw, &r)
				got[string(r.ID)] = raw
			}
			streamtest.Check(t, sc, i+1, got[strconv.Itoa(i+1)])
			expectResult(t, got[`"after"`], `"after"`, `2`)
		}
	}
	for i, sc := range streamtest.Cases {
		if !sc.Cut {
			continue
		}
		c := ts.dial(t, frame.NDJSON)
		c.send(streamtest.Call(sc.Method, i+1))
		c.nc.SetReadDeadline(time.Now().Add(testTimeout))
		for {
			raw, err := c.fr.Next()
			if err != nil {
				break // closed, the line never completed
			}
			if json.Valid(raw) {
				t.Fatalf("%s: a complete message arrived: %.100s", sc.Method, raw)
			}
		}
	}
}

// TestStreamResultTCPConcurrent: streamed results of calls running at once
// on one NDJSON connection never interleave: every line is one valid
// response.
func TestStreamResultTCPConcurrent(t *testing.T) {
	ts := startServer(t, nil, streamSetup)
	c := ts.dial(t, frame.NDJSON)
	const n = 6
	for i := range n {
		c.send(streamtest.Call("stream_many", i))
		c.send(`{"jsonrpc":"2.0","method":"sleep","params":[1],"id":"s` + strconv.Itoa(i) + `"}`)
	}
	many := streamtest.Case{Method: "stream_many", Result: streamtest.Many}
	for range 2 * n {
		raw := c.recv()
		var r struct{ ID json.RawMessage }
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("line is not one response: %v: %.100s", err, raw)
		}
		if r.ID[0] != '"' {
			id, _ := strconv.Atoi(string(r.ID))
			streamtest.Check(t, many, id, raw)
		}
	}
}

// TestStreamResultDisconnect: a client that goes away mid-stream ends the
// handler: its writes fail and its context is done.
func TestStreamResultDisconnect(t *testing.T) {
	ended := make(chan error, 1)
	ts := startServer(t, nil, withMethod(streamtest.Forever(ended)))
	c := ts.dial(t, frame.NDJSON)
	c.send(streamtest.Call("stream_forever", 1))
	buf := make([]byte, 256<<10)
	c.nc.SetReadDeadline(time.Now().Add(testTimeout))
	if _, err := c.nc.Read(buf); err != nil { // the first bytes came
		t.Fatal(err)
	}
	c.nc.Close()
	select {
	case err := <-ended:
		if err == nil {
			t.Fatal("handler ended without an error")
		}
	case <-time.After(testTimeout):
		t.Fatal("handler still streaming after the client left")
	}
}

// TestMaxResponseTCP: over every framing a response over MaxResponse is
// the ResponseTooLarge error with its id, and the next call on the
// connection is answered; a streamed blob over it is held (and refused)
// where the framing needs the length first, and sent whole over NDJSON.
func TestMaxResponseTCP(t *testing.T) {
	const limit = 64 << 10
	checkGoroutines(t)
	s := New(newEngineWith(t, dispatch.Options{MaxResponse: limit}, streamSetup), &Options{Logger: quiet})
	ts := serveOn(t, s)
	big := strings.Repeat("z", limit)
	for _, kind := range framings {
		c := ts.dial(t, kind)
		expectError(t, c.call(`{"jsonrpc":"2.0","method":"echo","params":["`+big+`"],"id":7}`), `7`, -32000)
		expectResult(t, c.call(`{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":8}`), `8`, `2`)
		raw := c.call(`{"jsonrpc":"2.0","method":"blob","params":[1048576],"id":9}`)
		if kind != frame.NDJSON {
			expectError(t, raw, `9`, -32000)
			continue
		}
		var r struct{ Result string }
		if err := json.Unmarshal(raw, &r); err != nil || len(r.Result) != 1<<20 {
			t.Fatalf("ndjson blob: %v, %d bytes", err, len(r.Result))
		}
	}
}

// TestStreamResultWS: the table over WebSocket, where a streamed result is
// one text message in fragments: every answer is one valid response with
// its id, a call behind each is answered, a result cut off closes the
// connection with 1011, and a blob over MaxResponse arrives whole (it is
// never held).
func TestStreamResultWS(t *testing.T) {
	_, url := startWS(t, nil, streamSetup)
	c := dialWS(t, url)
	for i, sc := range streamtest.Cases {
		if sc.Cut {
			continue
		}
		wsSend(t, c, streamtest.Call(sc.Method, i+1))
		wsSend(t, c, `{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":"after"}`)
		got := map[string][]byte{}
		for range 2 {
			raw := wsRecv(t, c)
			var r struct{ ID json.RawMessage }
			json.Unmarshal(raw, &r)
			got[string(r.ID)] = raw
		}
		streamtest.Check(t, sc, i+1, got[strconv.Itoa(i+1)])
		expectResult(t, got[`"after"`], `"after"`, `2`)
	}
	for i, sc := range streamtest.Cases {
		if sc.Cut {
			c := dialWS(t, url)
			wsSend(t, c, streamtest.Call(sc.Method, i+1))
			wsExpectClose(t, c, 1011)
		}
	}
}

// TestMaxResponseWS: over WebSocket a returned result over MaxResponse is
// the error with its id and the connection goes on; a streamed blob over
// it arrives whole.
func TestMaxResponseWS(t *testing.T) {
	const limit = 64 << 10
	warmFasthttp()
	checkGoroutines(t)
	hs := NewHTTPTest(newEngineWith(t, dispatch.Options{MaxResponse: limit}), &Options{Logger: quiet})
	c := dialWS(t, "ws://"+servertest.Serve(t, hs, ErrServerClosed)+"/ws")
	wsSend(t, c, `{"jsonrpc":"2.0","method":"echo","params":["`+strings.Repeat("z", limit)+`"],"id":7}`)
	expectError(t, wsRecv(t, c), `7`, -32000)
	wsSend(t, c, `{"jsonrpc":"2.0","method":"blob","params":[1048576],"id":9}`)
	var r struct{ Result string }
	if raw := wsRecv(t, c); json.Unmarshal(raw, &r) != nil || len(r.Result) != 1<<20 {
		t.Fatalf("blob: %d bytes", len(r.Result))
	}
	wsSend(t, c, `{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":8}`)
	expectResult(t, wsRecv(t, c), `8`, `2`)
}

// TestStreamResultTimeout: a streamed result over its method's Timeout is
// cut off even when its handler never looks at its context: its next
// piece fails, and the NDJSON connection closes without a complete line.
func TestStreamResultTimeout(t *testing.T) {
	ended := make(chan error, 1)
	ts := startServer(t, nil, withMethod(dispatch.Method{Name: "endless", Streams: true, Timeout: 100 * time.Millisecond,
		Handler: dispatch.HandlerFunc(func(ctx context.Context, _, dst []byte) ([]byte, error) {
			w := dispatch.StreamResult(ctx)
			w.BeginString()
			piece := []byte(strings.Repeat("y", 4096))
			for {
				if _, err := w.Write(piece); err != nil {
					ended <- err
					return dst, err
				}
			}
		})}))
	c := ts.dial(t, frame.NDJSON)
	c.send(`{"jsonrpc":"2.0","method":"endless","id":1}`)
	c.nc.SetReadDeadline(time.Now().Add(testTimeout))
	if _, err := io.Copy(io.Discard, c.nc); err != nil && !isReset(err) {
		t.Fatalf("read: %v", err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("handler ended with %v, want the deadline", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("handler still streaming after its timeout")
	}
}
