package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tinyDoc = `{"openrpc":"1.3.2","info":{"title":"Tiny API","version":"1"},"methods":[` +
	`{"name":"add","params":[{"name":"a","schema":{"type":"integer"}},{"name":"b","schema":{"type":"integer"}}],"result":{"name":"c","schema":{"type":"integer"}}}]}`

// TestGenDirectory: without --out, gen writes into a new directory named
// after the package; it refuses a directory holding another package (the
// current one of a main package, say), and rewrites its own.
func TestGenDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	doc := filepath.Join(dir, "doc.json")
	os.WriteFile(doc, []byte(tinyDoc), 0o644)
	os.WriteFile("main.go", []byte("package main\n\nfunc main() {}\n"), 0o644)
	f := func(wantCode int, wantOut, wantErr string, args ...string) {
		t.Helper()
		var out, errs bytes.Buffer
		code := run(context.Background(), append([]string{"gen"}, args...), nil, &out, &errs)
		if code != wantCode || strings.TrimSpace(out.String()) != wantOut || !strings.Contains(errs.String(), wantErr) {
			t.Errorf("gen %q: exit %d stdout %q stderr %q, want %d %q %q", args, code, out.String(), errs.String(), wantCode, wantOut, wantErr)
		}
	}
	f(0, filepath.Join("tinyapi", genFile), "", doc)
	f(0, filepath.Join("tinyapi", genFile), "", doc) // its own file again
	os.WriteFile(filepath.Join("tinyapi", "extra.go"), []byte("package tinyapi\n"), 0o644)
	os.WriteFile(filepath.Join("tinyapi", "x_test.go"), []byte("package tinyapi_test\n"), 0o644)
	f(0, filepath.Join("tinyapi", genFile), "", doc) // beside files of its package
	f(1, "", ". holds package main (main.go), and the generated code is package tinyapi: give --out NEWDIR", "--out", ".", doc)
	f(0, genFile, "", "--out", ".", "--package", "main", doc)
	os.MkdirAll("api", 0o755)
	os.WriteFile(filepath.Join("api", "api.go"), []byte("package other\n"), 0o644)
	f(1, "", "holds package other", "--out", "api", doc)
	f(1, "", "give --out NEWDIR or --package NAME", "--package", "api", doc) // ./api, another package
	if src, _ := os.ReadFile(filepath.Join("api", genFile)); src != nil {
		t.Errorf("gen wrote into a directory of another package")
	}
	src, err := os.ReadFile(filepath.Join("tinyapi", genFile))
	if err != nil || !bytes.HasPrefix(src, []byte("// Code generated")) || !bytes.Contains(src, []byte("\npackage tinyapi\n")) {
		t.Errorf("tinyapi/%s: %v\n%.200s", genFile, err, src)
	}
}

// TestGenAddresses: gen takes the addresses call does: a bare HOST:PORT
// (raw TCP, or HTTP when an HTTP server answers there), tcp://, ws:// with
// or without /ws, http://; every one gives the same package.
func TestGenAddresses(t *testing.T) {
	stderr := serveInProcess(t, "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0")
	addrs := stderr.listening(t, "tcp", "http")
	var first []byte
	for _, src := range []string{addrs["tcp"], "tcp://" + addrs["tcp"], addrs["http"], "ws://" + addrs["http"],
		"ws://" + addrs["http"] + "/ws", "http://" + addrs["http"], "http://" + addrs["http"] + "/openrpc.json"} {
		dir := filepath.Join(t.TempDir(), "democlient")
		var out, errs bytes.Buffer
		if code := run(context.Background(), []string{"gen", "--out", dir, src}, nil, &out, &errs); code != 0 {
			t.Errorf("gen %s: exit %d: %s", src, code, errs.String())
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, genFile))
		switch {
		case err != nil:
			t.Errorf("gen %s: %v", src, err)
		case first == nil:
			first = got
		case !bytes.Equal(got, first):
			t.Errorf("gen %s: another package than from %s", src, addrs["tcp"])
		}
	}
	if !bytes.Contains(first, []byte("\npackage democlient\n")) {
		t.Errorf("not the demo's client:\n%.300s", first)
	}
	// tcp:// says what is wrong instead of taking another transport.
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"gen", "--out", t.TempDir(), "tcp://" + addrs["http"]}, nil, &out, &errs); code != 1 ||
		!strings.Contains(errs.String(), "this looks like an HTTP server; use http://"+addrs["http"]+"/") {
		t.Errorf("gen tcp://HTTP-ADDR: exit %d, stderr %q", code, errs.String())
	}
}

// TestCallWrongTransport: call at the other kind of server says which flag
// to use; --ws ws://HOST:PORT without a path means /ws.
func TestCallWrongTransport(t *testing.T) {
	stderr := serveInProcess(t, "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0")
	addrs := stderr.listening(t, "tcp", "http")
	f := func(wantCode int, wantOut, wantErr string, args ...string) {
		t.Helper()
		var out, errs bytes.Buffer
		code := run(context.Background(), append([]string{"call", "--timeout", "5s"}, args...), nil, &out, &errs)
		if code != wantCode || out.String() != wantOut || !strings.Contains(errs.String(), wantErr) {
			t.Errorf("call %q: exit %d stdout %q stderr %q, want %d %q %q", args, code, out.String(), errs.String(), wantCode, wantOut, wantErr)
		}
		if wantErr == "" && errs.Len() > 0 {
			t.Errorf("call %q: stderr %q", args, errs.String())
		}
	}
	f(1, "", "this looks like an HTTP server; use --http "+addrs["http"], "--tcp", addrs["http"], "sum", "[1,2]")
	f(1, "", "this looks like a raw TCP JSON-RPC server, not an HTTP one; use --tcp "+addrs["tcp"], "--http", addrs["tcp"], "sum", "[1,2]")
	f(1, "", "use --tcp "+addrs["tcp"], "--ws", addrs["tcp"], "sum", "[1,2]")
	f(0, "3\n", "", "--ws", "ws://"+addrs["http"], "sum", "[1,2]")
	f(0, "3\n", "", "--http", addrs["http"], "sum", "[1,2]")
	var out, errs bytes.Buffer // a JSON-RPC error is an answer: no hint
	if run(context.Background(), []string{"call", "--tcp", addrs["tcp"], "nope"}, nil, &out, &errs) != 1 ||
		strings.Contains(errs.String(), "looks like") || !strings.Contains(errs.String(), "-32601") {
		t.Errorf("call nope: stderr %q", errs.String())
	}
}

func TestSniffAnswer(t *testing.T) {
	f := func(in, want string) {
		t.Helper()
		if got := sniffAnswer([]byte(in)); got != want {
			t.Errorf("sniffAnswer(%q) = %q, want %q", in, got, want)
		}
	}
	f("HTTP/1.1 400 Bad Request\r\n", kindHTTP)
	f("HTTP/1.0 405 Method Not Allowed\r\n", kindHTTP)
	f(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700`, kindStream)
	f("\n[{\"jsonrpc\"", kindStream)
	f("Content-Length: 80\r\n\r\n{", kindStream)
	f("\x00\x00\x00\x50{\"jsonrpc\"", kindStream)
	f("", kindUnknown)
	f("SSH-2.0-OpenSSH_9.6\r\n", kindUnknown)
	f("220 smtp ready", kindUnknown)
}
