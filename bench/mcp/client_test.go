package mcpbench

import (
	"bufio"
	"context"
	"strings"
	"testing"
)

// TestConn: the load generator's client against each server on each
// revision: a session (2025-11-25) or none, echo, countdown's first
// progress; and a server's memory report.
func TestConn(t *testing.T) {
	for _, kind := range []string{KindJetRPC, KindGoSDK, KindMCPGo} {
		for _, v := range []string{V20251125, V20260728} {
			t.Run(kind+"/"+v, func(t *testing.T) {
				p := start(t, kind, v)
				c := &Conn{URL: p.URL, Version: v}
				defer c.Close()
				if err := c.Open(); err != nil {
					t.Fatal(err)
				}
				if (c.session != "") != (v == V20251125) {
					t.Fatalf("session %q on %s", c.session, v)
				}
				for range 3 {
					if err := c.Echo("hello"); err != nil {
						t.Fatal(err)
					}
				}
				d, err := c.Countdown(3)
				if err != nil || d <= 0 {
					t.Fatalf("countdown: %v %v", d, err)
				}
				if err := c.Echo("again"); err != nil { // the connection is reusable after a stream
					t.Fatal(err)
				}
				m, err := p.Mem(context.Background(), true)
				if err != nil || m.Mallocs == 0 || m.TotalAlloc == 0 || m.HeapAlloc == 0 || m.RSS == 0 {
					t.Fatalf("mem %+v %v", m, err)
				}
			})
		}
	}
}

// TestConnRefused: a peer pinned to 2025-11-25 refuses a 2026-07-28 call,
// and the client says so.
func TestConnRefused(t *testing.T) {
	for _, kind := range []string{KindGoSDK, KindMCPGo} {
		p := start(t, kind, V20251125)
		c := &Conn{URL: p.URL, Version: V20260728}
		err := c.Echo("hello")
		if err == nil || !strings.Contains(err.Error(), "HTTP 400") {
			t.Fatalf("%s: %v", kind, err)
		}
		c.Close()
	}
}

// TestBody: Content-Length and chunked bodies (chunk extensions, a
// trailer), and what a response head must have.
func TestBody(t *testing.T) {
	f := func(raw, want, wantErr string) {
		t.Helper()
		w := &wire{br: bufio.NewReader(strings.NewReader(raw))}
		res, err := w.readHead()
		var b []byte
		if err == nil {
			b, err = readAll(res.body, nil)
		}
		switch {
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Fatalf("%q: err %v, want %q", raw, err, wantErr)
		case wantErr == "" && err != nil:
			t.Fatalf("%q: %v", raw, err)
		case wantErr == "" && string(b) != want:
			t.Fatalf("%q: body %q, want %q", raw, b, want)
		}
	}
	f("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloNEXT", "hello", "")
	f("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", "", "")
	f("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\na;x=1\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n", "abc0123456789", "")
	f("HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n0\r\n\r\n", "", "")
	f("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", "", "unexpected EOF")
	f("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "", "bad chunk size")
	f("HTTP/1.1 200 OK\r\n\r\n", "", "without Content-Length")
	f("HTTP/1.0 200 OK\r\n\r\n", "", "bad status line")
}

// TestRequest: the body and headers the client sends on each revision.
func TestRequest(t *testing.T) {
	c := &Conn{Version: V20260728}
	c.call("countdown", `{"n":5}`, true)
	want := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"countdown","arguments":{"n":5},` +
		`"_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if string(c.body) != want {
		t.Fatalf("got  %s\nwant %s", c.body, want)
	}
	c = &Conn{Version: V20251125}
	c.call("echo", `{"text":"x"}`, false)
	if want := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`; string(c.body) != want {
		t.Fatalf("got  %s\nwant %s", c.body, want)
	}
}

func TestParseSpec(t *testing.T) {
	f := func(in string, want Spec, ok bool) {
		t.Helper()
		got, err := ParseSpec(in)
		if (err == nil) != ok || got != want {
			t.Fatalf("%q: %+v %v", in, got, err)
		}
	}
	f("a=jetrpc:/x/y", Spec{"a", "jetrpc", "/x/y"}, true)
	f("go-sdk=gosdk:/b:c", Spec{"go-sdk", "gosdk", "/b:c"}, true)
	f("a=other:/x", Spec{}, false)
	f("a=jetrpc", Spec{}, false)
	f("jetrpc:/x", Spec{}, false)
	f("=jetrpc:/x", Spec{}, false)
}
