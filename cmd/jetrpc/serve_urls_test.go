package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveInProcess runs "jetrpc serve args..." in-process until the test
// ends (then it must exit 0) and returns its stderr.
func serveInProcess(t *testing.T, args ...string) *syncBuffer {
	t.Helper()
	stderr := new(syncBuffer)
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case c := <-code:
			if c != 0 {
				t.Errorf("serve exited %d; stderr:\n%s", c, stderr.String())
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not return after cancel")
		}
	})
	return stderr
}

// waitLine waits for a line of stderr starting with prefix and returns the
// lines after the listening lines up to it.
func waitLine(t *testing.T, stderr *syncBuffer, prefix string) []string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var lines []string
		for line := range strings.Lines(stderr.String()) {
			line = strings.TrimSuffix(line, "\n")
			if strings.HasPrefix(line, "listening ") || strings.Contains(line, "level=") {
				continue
			}
			lines = append(lines, line)
			if strings.HasPrefix(line, prefix) {
				return lines
			}
		}
	}
	t.Fatalf("no line %q; stderr:\n%s", prefix, stderr.String())
	return nil
}

// get GETs url and returns the status, the Allow header and the body.
func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Allow"), string(body)
}

// TestServeFeatureURLs: after the listening lines, serve prints one line
// per feature URL of the flags given, each of which answers a GET.
func TestServeFeatureURLs(t *testing.T) {
	stderr := serveInProcess(t, "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--admin", "127.0.0.1:0",
		"--mcp", "--ui", "--a2a")
	addrs := stderr.listening(t, "tcp", "http", "admin")
	got := waitLine(t, stderr, "metrics ")
	web, admin := "http://"+addrs["http"], "http://"+addrs["admin"]
	want := []string{"ui " + web + "/ui/", "mcp " + web + "/mcp", "a2a " + web + "/a2a",
		"a2a-card " + web + "/.well-known/agent-card.json", "openrpc " + web + "/openrpc.json", "metrics " + admin + "/metrics"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("feature lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasPrefix(stderr.String(), "listening tcp "+addrs["tcp"]+"\nlistening http "+addrs["http"]+"\nlistening admin "+addrs["admin"]+"\n") {
		t.Errorf("the listening lines are not first and unchanged:\n%s", stderr.String())
	}
	for _, line := range want {
		url := strings.Fields(line)[1]
		status, _, body := get(t, url)
		switch {
		case strings.HasSuffix(url, "/mcp") || strings.HasSuffix(url, "/a2a"):
			if status == http.StatusNotFound || status >= 500 { // a GET without a session or a body: 4xx of their own
				t.Errorf("GET %s: %d %q", url, status, body)
			}
		case status != http.StatusOK:
			t.Errorf("GET %s: %d %q, want 200", url, status, body)
		}
	}
	// With --admin, the HTTP listener's 405 for /metrics names the admin listener.
	if status, allow, body := get(t, web+"/metrics"); status != 405 || allow != "POST" || !strings.Contains(body, admin) {
		t.Errorf("GET /metrics on --http: %d Allow %q %q, want 405 naming %s", status, allow, body, admin)
	}
}

// TestServeHints: without the flags, a GET of their paths is a 405 (Allow:
// POST) whose body names the flag; a POST there is still a call; only the
// openrpc line follows the listening lines.
func TestServeHints(t *testing.T) {
	stderr := serveInProcess(t, "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0")
	web := "http://" + stderr.listening(t, "tcp", "http")["http"]
	if got := waitLine(t, stderr, "openrpc "); len(got) != 1 {
		t.Errorf("feature lines %q, want only openrpc", got)
	}
	f := func(path, want string) {
		t.Helper()
		if status, allow, body := get(t, web+path); status != 405 || allow != "POST" || !strings.Contains(body, want) {
			t.Errorf("GET %s: %d Allow %q %q, want 405 Allow POST with %q", path, status, allow, body, want)
		}
	}
	f("/metrics", "serve it with --admin ADDR")
	f("/debug/pprof/heap", "--admin ADDR")
	f("/ui/", "with --ui")
	f("/mcp", "with --mcp")
	f("/a2a", "with --a2a")
	f("/.well-known/agent-card.json", "with --a2a")
	f("/nothing", "POST JSON-RPC 2.0 messages to any path")
	resp, err := http.Post(web+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"jsonrpc":"2.0","id":1,"result":19}` {
		t.Errorf("POST /mcp without --mcp: %q, want the call's answer", body)
	}
	http.DefaultClient.CloseIdleConnections()
}
