package client_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// requestID returns the raw id of the request msg, failing the test if msg
// is not a call.
func requestID(t *testing.T, msg string) string {
	t.Helper()
	var p decode.Parser
	m, err := p.Parse([]byte(msg))
	if err != nil || m.Kind != decode.Call {
		t.Errorf("peer got %q (%v), want a call", msg, err)
		return "0"
	}
	return string(m.ID)
}

// TestUnknownAndMalformed has a peer answer with responses for nobody and
// with garbage before the real answer: they are dropped or answered as the
// protocol says, and the call gets its answer.
func TestUnknownAndMalformed(t *testing.T) {
	checkGoroutines(t)
	answers := make(chan string, 10)
	addr := rawPeer(t, func(conn net.Conn, r *bufio.Reader) {
		id := requestID(t, readLine(t, r))
		for _, msg := range []string{
			`{"jsonrpc":"2.0","id":999999,"result":"stray"}`,           // an id we never sent: dropped
			`{"jsonrpc":"2.0","id":"` + id + `","result":"string id"}`, // our id, but as a string: dropped
			`{"jsonrpc":"2.0","id":` + id + `.0,"result":"1.0"}`,       // not the bytes we sent: dropped
			`{"jsonrpc":"2.0","id":99999999999999999999999,"error":{"code":1,"message":"x"}}`,
			`[{"jsonrpc":"2.0","id":888888,"result":1}]`, // a batch of one stray response
			`not json`,                 // -32700
			`{"jsonrpc":"2.0","id":1`,  // truncated: -32700
			`{"jsonrpc":"1.0","id":5}`, // invalid: -32600
			`[]`,                       // -32600
			`[1]`,                      // [-32600]
			`"\xff"`,                   // not UTF-8: -32700
			strings.Repeat("[", 5000) + strings.Repeat("]", 5000), // too deep: -32700
			`{"jsonrpc":"2.0","id":` + id + `,"result":"ok"}`,
		} {
			writeLine(t, conn, msg)
		}
		for range 7 { // the client's answers to the garbage
			answers <- readLine(t, r)
		}
		// The second call gets a malformed answer: result and error.
		id = requestID(t, readLine(t, r))
		writeLine(t, conn, `{"jsonrpc":"2.0","id":`+id+`,"result":1,"error":{"code":1,"message":"x"}}`)
		// The third a batch holding its answer and a stray one.
		id = requestID(t, readLine(t, r))
		writeLine(t, conn, `[{"jsonrpc":"2.0","id":777777,"result":1},{"jsonrpc":"2.0","id":`+id+`,"result":[3]}]`)
		waitClosed(r)
	})
	c := dialTCP(t, addr, nil)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	got, err := c.CallRaw(ctx, nil, "m", nil)
	if err != nil || string(got) != `"ok"` {
		t.Fatalf("call = %s, %v; want \"ok\"", got, err)
	}
	if d := c.Dropped(); d != 5 {
		t.Errorf("Dropped = %d, want 5", d)
	}
	want := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`,
		`[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
	}
	for i, w := range want {
		select {
		case a := <-answers:
			if a != w {
				t.Errorf("answer %d = %s, want %s", i, a, w)
			}
		case <-ctx.Done():
			t.Fatal("no answer to the garbage")
		}
	}
	if _, err := c.CallRaw(ctx, nil, "m", nil); !errors.Is(err, client.ErrBadResponse) {
		t.Errorf("malformed response: %v, want ErrBadResponse", err)
	}
	if got, err := c.CallRaw(ctx, nil, "m", nil); err != nil || string(got) != "[3]" {
		t.Errorf("answer in a batch = %s, %v", got, err)
	}
	if d := c.Dropped(); d != 6 {
		t.Errorf("Dropped = %d, want 6", d)
	}
}

// TestConnDrop has the peer close the connection with calls pending.
func TestConnDrop(t *testing.T) {
	checkGoroutines(t)
	addr := rawPeer(t, func(conn net.Conn, r *bufio.Reader) {
		readLine(t, r)
		readLine(t, r)
		conn.Close()
	})
	c := dialTCP(t, addr, nil)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := c.CallRaw(context.Background(), nil, "m", []byte(`[1]`))
			errs <- err
		}()
	}
	for range 2 {
		select {
		case err := <-errs:
			if !errors.Is(err, client.ErrClosed) || !errors.Is(err, io.EOF) {
				t.Errorf("call on a dropped connection: %v, want ErrClosed and EOF", err)
			}
		case <-time.After(testTimeout):
			t.Fatal("call hangs after the connection dropped")
		}
	}
	if err := c.Notify(context.Background(), "n", nil); !errors.Is(err, client.ErrClosed) {
		t.Errorf("notify on a dropped connection: %v", err)
	}
}

// TestResponseTooLarge: a frame over MaxMessage cannot be matched to a call,
// so the client closes the connection and the call fails.
func TestResponseTooLarge(t *testing.T) {
	checkGoroutines(t)
	addr := rawPeer(t, func(conn net.Conn, r *bufio.Reader) {
		id := requestID(t, readLine(t, r))
		writeLine(t, conn, `{"jsonrpc":"2.0","id":`+id+`,"result":"`+strings.Repeat("x", 2000)+`"}`)
		waitClosed(r)
	})
	c := dialTCP(t, addr, &client.Options{MaxMessage: 1000})
	_, err := c.CallRaw(context.Background(), nil, "m", nil)
	if !errors.Is(err, client.ErrClosed) || !strings.Contains(err.Error(), "exceeds the limit") {
		t.Errorf("oversized response: %v", err)
	}
}

func TestCancelNotify(t *testing.T) {
	checkGoroutines(t)
	got := make(chan [2]string, 1)
	addr := rawPeer(t, func(conn net.Conn, r *bufio.Reader) {
		id := requestID(t, readLine(t, r))
		got <- [2]string{id, readLine(t, r)} // never answered; then the cancellation
		writeLine(t, conn, `{"jsonrpc":"2.0","id":`+id+`,"result":"late"}`)
		id = requestID(t, readLine(t, r))
		writeLine(t, conn, `{"jsonrpc":"2.0","id":`+id+`,"result":"next"}`)
		waitClosed(r)
	})
	c := dialTCP(t, addr, &client.Options{CancelNotify: true})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.CallRaw(ctx, nil, "slow", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("call: %v, want DeadlineExceeded", err)
	}
	g := <-got
	if want := `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + g[0] + `}}`; g[1] != want {
		t.Errorf("after cancelling: %s, want %s", g[1], want)
	}
	if res, err := c.CallRaw(context.Background(), nil, "next", nil); err != nil || string(res) != `"next"` {
		t.Errorf("next call = %s, %v", res, err)
	}
	if d := c.Dropped(); d != 1 { // the late answer
		t.Errorf("Dropped = %d, want 1", d)
	}
}

// TestServerCalls has a peer call and notify the client, whose Handler is
// a dispatch.Engine, while the client calls the peer.
func TestServerCalls(t *testing.T) {
	checkGoroutines(t)
	e := newEngine(t)
	var c *client.Client
	ready := make(chan struct{})
	notified := make(chan string, 1)
	// "ask" calls back the peer from inside the handler: the client's
	// reader keeps delivering responses while handlers run.
	ask := dispatch.HandlerFunc(func(ctx context.Context, params, dst []byte) ([]byte, error) {
		<-ready
		return c.CallRaw(ctx, dst, "peer_echo", params)
	})
	note := dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		notified <- string(params)
		return dst, nil
	})
	for _, m := range []dispatch.Method{{Name: "ask", Handler: ask}, {Name: "note", Handler: note}} {
		if err := e.RegisterMethod(m); err != nil {
			t.Fatal(err)
		}
	}
	answers := make(chan string, 10)
	addr := rawPeer(t, func(conn net.Conn, r *bufio.Reader) {
		for _, msg := range []string{
			`{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":"s1"}`,
			`{"jsonrpc":"2.0","method":"note","params":["hi"]}`,
			`[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":7},{"jsonrpc":"2.0","method":"notify_hello"}]`,
			`{"jsonrpc":"2.0","method":"ask","params":["x"],"id":9007199254740993}`,
		} {
			writeLine(t, conn, msg)
		}
		// Three answers and, among them, the handler's call to us.
		for n := 0; n < 3; {
			line := readLine(t, r)
			if line == "" {
				return
			}
			if strings.Contains(line, `"peer_echo"`) {
				id := requestID(t, line)
				writeLine(t, conn, `{"jsonrpc":"2.0","id":`+id+`,"result":{"echoed":["x"]}}`)
				continue
			}
			answers <- line
			n++
		}
		id := requestID(t, readLine(t, r)) // the client's own call
		writeLine(t, conn, `{"jsonrpc":"2.0","id":`+id+`,"result":"mine"}`)
		waitClosed(r)
	})
	c = dialTCP(t, addr, &client.Options{Handler: e})
	close(ready)
	want := map[string]bool{
		`{"jsonrpc":"2.0","id":"s1","result":2}`:                            true,
		`[{"jsonrpc":"2.0","id":7,"result":3}]`:                             true,
		`{"jsonrpc":"2.0","id":9007199254740993,"result":{"echoed":["x"]}}`: true,
	}
	for range 3 {
		select {
		case a := <-answers:
			if !want[a] {
				t.Errorf("unexpected answer %s", a)
			}
			delete(want, a)
		case <-time.After(testTimeout):
			t.Fatalf("missing answers: %v", want)
		}
	}
	if n := <-notified; n != `["hi"]` {
		t.Errorf("notification params = %s", n)
	}
	if res, err := c.CallRaw(context.Background(), nil, "m", nil); err != nil || string(res) != `"mine"` {
		t.Errorf("own call = %s, %v", res, err)
	}
}

// TestServerCallsNoHandler: without a Handler, calls from the server are
// answered -32601 and notifications ignored.
func TestServerCallsNoHandler(t *testing.T) {
	checkGoroutines(t)
	answers := make(chan string, 3)
	addr := rawPeer(t, func(conn net.Conn, r *bufio.Reader) {
		for _, msg := range []string{
			`{"jsonrpc":"2.0","method":"note","params":["hi"]}`,
			`{"jsonrpc":"2.0","method":"subtract","params":[5,3],"id":"s1"}`,
			`[{"jsonrpc":"2.0","method":"sum","id":7},{"jsonrpc":"2.0","method":"n"},2]`,
			`[{"jsonrpc":"2.0","method":"n"}]`,
			`{"jsonrpc":"2.0","method":"sum","id":8}`,
		} {
			writeLine(t, conn, msg)
		}
		for range 3 {
			answers <- readLine(t, r)
		}
		waitClosed(r)
	})
	dialTCP(t, addr, nil)
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":"s1","error":{"code":-32601,"message":"Method not found"}}`,
		`[{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]`,
		`{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found"}}`,
	} {
		select {
		case a := <-answers:
			if a != want {
				t.Errorf("answer %s, want %s", a, want)
			}
		case <-time.After(testTimeout):
			t.Fatal("missing answer")
		}
	}
}

// TestHandlerFunc: a plain HandlerFunc works, and a panicking one is
// survived.
func TestHandlerFunc(t *testing.T) {
	checkGoroutines(t)
	answers := make(chan string, 2)
	addr := rawPeer(t, func(conn net.Conn, r *bufio.Reader) {
		writeLine(t, conn, `{"jsonrpc":"2.0","method":"boom","id":1}`)
		writeLine(t, conn, `{"jsonrpc":"2.0","method":"hello","id":2}`)
		answers <- readLine(t, r)
		waitClosed(r)
	})
	h := client.HandlerFunc(func(dst, msg []byte) []byte {
		if strings.Contains(string(msg), "boom") {
			panic("boom")
		}
		return encode.AppendResult(dst, []byte("2"), []byte(`"hi"`))
	})
	dialTCP(t, addr, &client.Options{Handler: h})
	select {
	case a := <-answers:
		if a != `{"jsonrpc":"2.0","id":2,"result":"hi"}` {
			t.Errorf("answer %s", a)
		}
	case <-time.After(testTimeout):
		t.Fatal("missing answer")
	}
}

var _ client.Handler = (*dispatch.Engine)(nil)
