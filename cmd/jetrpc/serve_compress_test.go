package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/httpz/bombtest"
)

// curl runs curl with args and returns the response's headers (lower
// case) and body.
func curl(t *testing.T, args ...string) (hdr string, body []byte) {
	t.Helper()
	h, b := curlRaw(t, args...)
	return strings.ToLower(h), b
}

// curlRaw is curl with the headers as they came.
func curlRaw(t *testing.T, args ...string) (hdr string, body []byte) {
	t.Helper()
	dir := t.TempDir()
	hfile, bfile := filepath.Join(dir, "h"), filepath.Join(dir, "b")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	args = append([]string{"-sS", "--max-time", "15", "-D", hfile, "-o", bfile}, args...)
	if out, err := exec.CommandContext(ctx, "curl", args...).CombinedOutput(); err != nil {
		t.Fatalf("curl %q: %v\n%s", args, err, out)
	}
	h, _ := os.ReadFile(hfile)
	b, _ := os.ReadFile(bfile)
	return string(h), b
}

// TestServeCompressCurl: curl --compressed gets gzip from jetrpc serve
// above --compress-min and plain answers below it, decoding to the bytes of
// the plain answer; --compress-min 0 turns it off. A gzip request body is
// served; a bomb gets 413 and leaves the server's RSS where it was.
func TestServeCompressCurl(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "127.0.0.1:0")
	url := "http://" + p.stderr.listening(t, "http")["http"] + "/"
	big := `{"jsonrpc":"2.0","method":"echo","params":["` + strings.Repeat("0xabcdef0123456789", 256) + `"],"id":1}`
	small := `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":2}`
	post := func(body string, extra ...string) (string, []byte) {
		t.Helper()
		return curl(t, append([]string{"-H", "Content-Type: application/json", "--data-binary", body}, append(extra, url)...)...)
	}
	hdr, plain := post(big)
	if strings.Contains(hdr, "content-encoding") || !strings.Contains(hdr, "vary: accept-encoding") {
		t.Errorf("without --compressed: %s", hdr)
	}
	hdr, got := post(big, "--compressed")
	if !strings.Contains(hdr, "content-encoding: gzip") || !bytes.Equal(got, plain) {
		t.Errorf("--compressed above the threshold: %s; %d bytes decoded, %d plain", hdr, len(got), len(plain))
	}
	// The bytes on the wire: curl without --compressed but asking for gzip.
	hdr, wire := post(big, "-H", "Accept-Encoding: gzip")
	if !strings.Contains(hdr, "content-encoding: gzip") || len(wire)*3 > len(plain) {
		t.Errorf("on the wire: %d bytes gzip of %d", len(wire), len(plain))
	}
	if hdr, got = post(small, "--compressed"); strings.Contains(hdr, "content-encoding") || !strings.Contains(string(got), `"result":19`) {
		t.Errorf("--compressed below the threshold: %s %s", hdr, got)
	}

	// A gzip request body.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(big))
	zw.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "body.gz")
	os.WriteFile(file, gz.Bytes(), 0o600)
	if hdr, got = post("@"+file, "-H", "Content-Encoding: gzip"); !strings.HasPrefix(hdr, "http/1.1 200") || !bytes.Equal(got, plain) {
		t.Errorf("gzip body: %s %d bytes", hdr, len(got))
	}
	os.WriteFile(file, bombtest.Gzip(1<<10), 0o600) // 1 GiB in 1 MiB
	rss := func() int {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/status")
		if err != nil {
			return -1
		}
		for l := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
				return n
			}
		}
		return -1
	}
	before := rss()
	if hdr, _ = post("@"+file, "-H", "Content-Encoding: gzip", "-H", "Expect:"); !strings.HasPrefix(hdr, "http/1.1 413") {
		t.Errorf("bomb: %s", hdr)
	}
	if after := rss(); before > 0 && after-before > 32<<10 {
		t.Errorf("RSS grew from %d to %d kB on a bomb", before, after)
	} else {
		t.Logf("bomb: RSS %d kB before, %d kB after", before, after)
	}
	if hdr, _ = post(small, "-H", "Content-Encoding: br"); !strings.HasPrefix(hdr, "http/1.1 415") {
		t.Errorf("Content-Encoding br: %s", hdr)
	}

	off := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--compress-min", "0")
	offURL := "http://" + off.stderr.listening(t, "http")["http"] + "/"
	hdr, got = curl(t, "--compressed", "-H", "Content-Type: application/json", "--data-binary", big, offURL)
	if strings.Contains(hdr, "content-encoding") || strings.Contains(hdr, "vary") || !bytes.Equal(got, plain) {
		t.Errorf("--compress-min 0: %s", hdr)
	}
}

// TestServeCompressMCP: jetrpc serve --mcp compresses MCP's Streamable
// HTTP answers for curl --compressed: a JSON answer (tools/list) and an
// event stream (countdown with progress), both decoded right.
func TestServeCompressMCP(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "127.0.0.1:0", "--mcp")
	url := "http://" + p.stderr.listening(t, "http")["http"] + "/mcp"
	hdr := []string{"-H", "Content-Type: application/json", "-H", "Accept: application/json, text/event-stream"}
	h, _ := curlRaw(t, append(hdr, "--data-binary", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, url)...)
	var session string
	for l := range strings.Lines(h) {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, "Mcp-Session-Id") {
			session = strings.TrimSpace(v)
		}
	}
	if session == "" {
		t.Fatalf("no session: %s", h)
	}
	hdr = append(hdr, "-H", "Mcp-Session-Id: "+session, "-H", "MCP-Protocol-Version: 2025-11-25", "--compressed")
	curl(t, append(hdr, "--data-binary", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, url)...)
	h, body := curl(t, append(hdr, "--data-binary", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, url)...)
	if !strings.Contains(h, "content-encoding: gzip") || !strings.Contains(string(body), `"name":"countdown"`) {
		t.Errorf("tools/list: %s%.200s", h, body)
	}
	h, body = curl(t, append(hdr, "--data-binary", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"countdown","arguments":{"n":3},"_meta":{"progressToken":"p"}}}`, url)...)
	if !strings.Contains(h, "content-encoding: gzip") || !strings.Contains(h, "text/event-stream") ||
		strings.Count(string(body), "notifications/progress") != 3 || !strings.Contains(string(body), `"text":"done"`) {
		t.Errorf("countdown: %s%s", h, body)
	}
}
