package nethttp_test

// NOTE: behaviour both HTTP servers share; http_test.go and httpstd_test.go
// run every suite function against their server.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/vectors"
	"github.com/jetrpc/jetrpc/netserver"
)

const httpSubtract = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`

// httpSuiteVectors posts every specification vector.
func httpSuiteVectors(t *testing.T, start httpStart) {
	h := start(t, nil)
	vs, err := vectors.Spec()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		r := h.post(v.Request)
		switch {
		case v.NoResponse() && (r.status != http.StatusNoContent || len(r.body) != 0):
			t.Errorf("%s: got %d %q, want 204 and no body", v.Name, r.status, r.body)
		case !v.NoResponse() && r.status != http.StatusOK:
			t.Errorf("%s: got %d %q, want 200", v.Name, r.status, r.body)
		}
		if err := v.Check(r.body); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
}

// httpSuiteTooLarge checks 413 for bodies over the limit, declared or
// chunked, small or far over, and that the server goes on serving.
func httpSuiteTooLarge(t *testing.T, start httpStart) {
	const limit = 1024
	h := start(t, &netserver.Options{MaxMessage: limit})
	atLimit := httpSubtract[:len(httpSubtract)-1] + strings.Repeat(" ", limit-len(httpSubtract)) + "}"
	h.post(atLimit).wantCall(t, `"result":19`)
	f := func(size int, chunked bool) {
		t.Helper()
		body := bytes.Repeat([]byte(" "), size)
		r, err := h.do(http.MethodPost, "", body, chunked)
		if err != nil || r.status != http.StatusRequestEntityTooLarge {
			t.Errorf("size %d chunked %v: got %d %v, want 413", size, chunked, r.status, err)
		}
		h.post(httpSubtract).wantCall(t, `"result":19`)
	}
	f(limit+1, false)
	f(limit+1, true)
	f(8<<20, false)
	f(8<<20, true)
}

// httpSuiteMethods checks 405 and Allow for methods other than POST.
func httpSuiteMethods(t *testing.T, start httpStart) {
	h := start(t, nil)
	f := func(method, path string) {
		t.Helper()
		r, err := h.do(method, path, nil, false)
		if err != nil || r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
			t.Errorf("%s /%s: got %d Allow %q %v, want 405 Allow POST", method, path, r.status, r.header.Get("Allow"), err)
		}
	}
	f(http.MethodGet, "")
	f(http.MethodGet, "ws")
	f(http.MethodPut, "")
	f(http.MethodDelete, "")
}

// httpSuiteSlowCall checks that a sleeping call does not hold up another:
// subtract, sent while sleep runs, is answered first.
func httpSuiteSlowCall(t *testing.T, start httpStart) {
	h := start(t, nil)
	order := make(chan string, 2)
	var wg sync.WaitGroup
	send := func(name, msg, want string) {
		defer wg.Done()
		r, err := h.do(http.MethodPost, "", []byte(msg), false)
		if err != nil || !strings.Contains(string(r.body), want) {
			t.Errorf("%s: got %d %s %v, want %s", name, r.status, r.body, err, want)
		}
		order <- name
	}
	wg.Add(2)
	go send("sleep", `{"jsonrpc":"2.0","method":"sleep","params":[500],"id":"s"}`, `"result":500`)
	h.awaitStart("sleep")
	go send("subtract", httpSubtract, `"result":19`)
	wg.Wait()
	if first := <-order; first != "subtract" {
		t.Errorf("first answer: %s, want subtract", first)
	}
}

// httpSuitePanic checks that a panicking handler gets -32603 and the server
// keeps serving.
func httpSuitePanic(t *testing.T, start httpStart) {
	h := start(t, nil)
	h.post(`{"jsonrpc":"2.0","method":"panic","id":7}`).wantCall(t, `"code":-32603`)
	h.post(httpSubtract).wantCall(t, `"result":19`)
}

// httpSuiteConcurrent runs many clients at once, each checking its answers.
func httpSuiteConcurrent(t *testing.T, start httpStart) {
	h := start(t, nil)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				id := g*1000 + i
				msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"subtract","params":[%d,%d],"id":%d}`, id, i, id)
				want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%d}`, id, g*1000)
				r, err := h.do(http.MethodPost, "", []byte(msg), i%2 == 1)
				if err != nil || string(r.body) != want {
					t.Errorf("got %s %v, want %s", r.body, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// httpSuiteShutdown checks that Shutdown lets a call in flight finish and
// its answer reach the client.
func httpSuiteShutdown(t *testing.T, start httpStart) {
	h := start(t, nil)
	got := make(chan httpReply, 1)
	go func() {
		r, err := h.do(http.MethodPost, "", []byte(`{"jsonrpc":"2.0","method":"sleep","params":[300],"id":9}`), false)
		if err != nil {
			t.Errorf("call in flight: %v", err)
		}
		got <- r
	}()
	h.awaitStart("sleep")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.stop(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	(<-got).wantCall(t, `"result":300`)
	if _, err := h.do(http.MethodPost, "", []byte(httpSubtract), false); err == nil {
		t.Error("a request after Shutdown was answered")
	}
}

// httpSuiteShutdownTimeout checks a Shutdown that runs out of time: it
// returns the context's error, cancels the call and closes its connection.
func httpSuiteShutdownTimeout(t *testing.T, start httpStart) {
	h := start(t, nil)
	failed := make(chan error, 1)
	go func() {
		r, err := h.do(http.MethodPost, "", []byte(`{"jsonrpc":"2.0","method":"sleep","params":[60000],"id":9}`), false)
		if err == nil {
			err = fmt.Errorf("got %d %s", r.status, r.body)
		}
		failed <- err
	}()
	h.awaitStart("sleep")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := h.stop(ctx); err != context.DeadlineExceeded {
		t.Errorf("Shutdown: %v, want %v", err, context.DeadlineExceeded)
	}
	select {
	case err := <-failed:
		t.Logf("the call in flight ended with %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight was not ended")
	}
}

// httpSuiteExpect checks that a declared body over the limit is refused
// with 413 at once when the client waits for "100 Continue".
func httpSuiteExpect(t *testing.T, start httpStart) {
	h := start(t, &netserver.Options{MaxMessage: 1024})
	conn, err := net.DialTimeout("tcp", strings.TrimSuffix(strings.TrimPrefix(h.url, "http://"), "/"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: jetrpc\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 413 ") {
		t.Errorf("got %q %v, want a 413 status line", line, err)
	}
}
