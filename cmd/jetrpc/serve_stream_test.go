package main

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/dispatch"
)

// TestBinaryTalksBack: the built binary streams Server-Sent Events for a
// POST that accepts them, and notifies and calls its client over a
// WebSocket and over TCP (the demo's subscribe and callback).
func TestBinaryTalksBack(t *testing.T) {
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0")
	addrs := p.stderr.listening(t, "tcp", "http")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addrs["http"]+"/",
		strings.NewReader(`{"jsonrpc":"2.0","method":"subscribe","params":[2],"id":7}`))
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, line)
		}
	}
	resp.Body.Close()
	want := []string{
		`{"jsonrpc":"2.0","method":"subscription","params":{"subscription":7,"result":1}}`,
		`{"jsonrpc":"2.0","method":"subscription","params":{"subscription":7,"result":2}}`,
		`{"jsonrpc":"2.0","id":7,"result":2}`,
	}
	if resp.Header.Get("Content-Type") != "text/event-stream" || strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Errorf("SSE: %s %q, want text/event-stream %q", resp.Header.Get("Content-Type"), events, want)
	}

	dial := map[string]func(h client.Handler) (*client.Client, error){
		"ws": func(h client.Handler) (*client.Client, error) {
			return client.DialWebSocket(ctx, "ws://"+addrs["http"]+"/ws", &client.Options{Handler: h})
		},
		"tcp": func(h client.Handler) (*client.Client, error) {
			return client.Dial(ctx, "tcp", addrs["tcp"], &client.Options{Handler: h})
		},
	}
	for name, d := range dial {
		h, got := clientEngine(t)
		c, err := d(h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var n int
		if err := c.Call(ctx, "subscribe", []int{1}, &n); err != nil || n != 1 {
			t.Errorf("%s subscribe: %d %v", name, n, err)
		}
		var back []int
		if err := c.Call(ctx, "callback", []any{"client.echo", []int{4, 2}}, &back); err != nil || len(back) != 2 || back[0] != 4 {
			t.Errorf("%s callback: %v %v", name, back, err)
		}
		select {
		case params := <-got:
			if params != `{"subscription":1,"result":1}` {
				t.Errorf("%s: notification params %s", name, params)
			}
		case <-ctx.Done():
			t.Errorf("%s: the notification did not reach the client's handler", name)
		}
		c.Close()
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d after SIGTERM", code)
	}
}

// clientEngine is the client's side: it records the "subscription"
// notifications and answers client.echo with its params.
func clientEngine(t *testing.T) (*dispatch.Engine, chan string) {
	got := make(chan string, 8)
	e := dispatch.New(nil)
	t.Cleanup(e.Close)
	_ = e.Register("subscription", dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		got <- string(params)
		return dst, nil
	}))
	_ = e.Register("client.echo", dispatch.HandlerFunc(func(_ context.Context, params, dst []byte) ([]byte, error) {
		return append(dst, params...), nil
	}))
	return e, got
}
