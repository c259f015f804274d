package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/gateway"
)

// oddError is the error object the odd upstream answers every call with:
// escapes the gateway must not rewrite, members JSON-RPC does not name,
// its own order and spacing.
const oddError = `{ "data" : {"b":1,"a":[1, 2.50]}, "message":"caf\u00e9 \"x\" \/ \ud83d\ude00", "code": -32000, "x-retry" : true }`

// oddAnswers appends the odd upstream's answer to msg (one call or a
// batch of them): oddError with each call's id, the id last.
func oddAnswers(dst, msg []byte) []byte {
	var p decode.Parser
	m, err := p.Parse(msg)
	if err != nil {
		return dst
	}
	one := func(dst, id []byte) []byte {
		dst = append(dst, `{"error":`+oddError+`, "jsonrpc":"2.0", "id":`...)
		return append(append(dst, id...), '}')
	}
	if m.Kind != decode.Batch {
		return one(dst, m.ID)
	}
	dst = append(dst, '[')
	for i, b := range p.Batch() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = one(dst, b.ID)
	}
	return append(dst, ']')
}

// oddTCP serves oddAnswers over NDJSON TCP until the test ends.
func oddTCP(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			go func() {
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadBytes('\n')
					if err != nil {
						return
					}
					if _, err := c.Write(append(oddAnswers(nil, bytes.TrimSpace(line)), '\n')); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestRawErrorPassThrough: an upstream's error object reaches the client
// byte for byte (escapes, extra members, order and spacing kept) with the
// client's id, over a TCP and an HTTP upstream, for a single call and for
// batch members.
func TestRawErrorPassThrough(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(oddAnswers(nil, body))
	}))
	t.Cleanup(hs.Close)
	tcp, err := client.Dial(context.Background(), "tcp", oddTCP(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	web, err := client.DialHTTP(hs.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, up := range []struct {
		name string
		c    *client.Client
	}{{"tcp", tcp}, {"http", web}} {
		p, err := client.NewPool([]*client.Client{up.c}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		e := engine(t, newGateway(t, &gateway.Options{Default: &gateway.Group{Name: up.name, Pool: p}, Timeout: 5 * time.Second}))
		f := func(in, want string) {
			t.Helper()
			if got := string(e.Process(make([]byte, 0, 8), []byte(in))); got != want {
				t.Errorf("%s: %s\n got %s\nwant %s", up.name, in, got, want)
			}
		}
		for _, id := range []string{`1`, `"a\u0041"`, `9007199254740993`, `null`} {
			f(`{"jsonrpc":"2.0","id":`+id+`,"method":"eth_call","params":[{"to":"0x0"}]}`,
				`{"jsonrpc":"2.0","id":`+id+`,"error":`+oddError+`}`)
		}
		f(`[{"jsonrpc":"2.0","id":1,"method":"eth_call"},{"jsonrpc":"2.0","id":"b","method":"eth_call","params":[]}]`,
			`[{"jsonrpc":"2.0","id":1,"error":`+oddError+`},{"jsonrpc":"2.0","id":"b","error":`+oddError+`}]`)
	}
}

// TestForwardRawError: Pool.ForwardRaw appends an error response's object
// as it came and returns its parsed error; CallRaw returns dst unchanged.
func TestForwardRawError(t *testing.T) {
	c, err := client.Dial(context.Background(), "tcp", oddTCP(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := client.NewPool([]*client.Client{c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	out, err := p.ForwardRaw(ctx, []byte("x"), "m", nil)
	if string(out) != "x"+oddError || err == nil || err.Error() == "" {
		t.Errorf("ForwardRaw = %s, %v", out, err)
	}
	out, err = p.CallRaw(ctx, []byte("x"), "m", nil)
	if string(out) != "x" || err == nil {
		t.Errorf("CallRaw = %s, %v", out, err)
	}
	out, err = p.ForwardRawOn(ctx, 0, nil, "m", nil)
	if string(out) != oddError || err == nil {
		t.Errorf("ForwardRawOn = %s, %v", out, err)
	}
}
