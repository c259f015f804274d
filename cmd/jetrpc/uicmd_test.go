package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBinaryUI: jetrpc serve --ui serves the console at /ui/; jetrpc ui in
// front of a second jetrpc serve over tcp:// serves it at / and relays the
// calls; both exit 0 on SIGTERM. (The browser tests are in
// interop/node/browser.)
func TestBinaryUI(t *testing.T) {
	srv := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--ui")
	addrs := srv.stderr.listening(t, "tcp", "http")
	doc := filepath.Join(t.TempDir(), "doc.json")
	os.WriteFile(doc, []byte(`{"openrpc":"1.3.2","info":{"title":"x","version":"1"},"methods":[]}`), 0o644)
	con := startBinary(t, nil, nil, "ui", "--listen", "127.0.0.1:0", "--openrpc", doc, "tcp://"+addrs["tcp"])
	uiAddr := con.stderr.listening(t, "ui")["ui"]

	get := func(url, want string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("GET %s: %d %.100s, want %q", url, resp.StatusCode, b, want)
		}
	}
	get("http://"+addrs["http"]+"/ui/", `data-testid="method-list"`)
	get("http://"+addrs["http"]+"/ui/config.json", `"ws":"../ws"`)
	get("http://"+uiAddr+"/", `data-testid="method-list"`)
	get("http://"+uiAddr+"/config.json", `"target":"tcp://`+addrs["tcp"])
	get("http://"+uiAddr+"/openrpc.json", `"title":"x"`)
	resp, err := http.Post("http://"+uiAddr+"/", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","method":"subtract","params":{"minuend":42,"subtrahend":23},"id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != `{"jsonrpc":"2.0","id":1,"result":19}` {
		t.Errorf("relayed call: %s", b)
	}
	for _, p := range []*process{con, srv} {
		p.cmd.Process.Signal(syscall.SIGTERM)
		if code := p.exit(t); code != 0 {
			t.Errorf("exit %d after SIGTERM", code)
		}
	}
}

// TestUIUsage: what jetrpc ui and serve --ui refuse.
func TestUIUsage(t *testing.T) {
	f := func(want int, args ...string) {
		t.Helper()
		var out syncBuffer
		if got := run(t.Context(), args, nil, &out, &out); got != want {
			t.Errorf("%v: exit %d, want %d\n%s", args, got, want, out.String())
		}
	}
	f(2, "ui")
	f(2, "ui", "ftp://x")
	f(2, "ui", "tcp://nohost")
	f(2, "ui", "--allow-host", "a/b", "tcp://127.0.0.1:1")
	f(1, "ui", "--openrpc", "/nonexistent", "tcp://127.0.0.1:1")
	f(0, "ui", "-h")
	f(2, "serve", "--ui", "--http", "")
}
