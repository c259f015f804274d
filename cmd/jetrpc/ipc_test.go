package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/client"
)

// TestServeIPC: --ipc serves JSON-RPC on a Unix socket of mode 0600 with
// auto framing; a second server on the same path fails and leaves the
// socket to the first; SIGTERM removes the socket file; a stale socket
// file is replaced; a file that is not a socket is left alone.
func TestServeIPC(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "jetrpc.ipc")
	p := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "", "--ipc", path)
	if got := p.stderr.listening(t, "ipc")["ipc"]; got != path {
		t.Fatalf("listening ipc %q, want %q", got, path)
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket file: %v %v", fi.Mode(), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	call := func() {
		t.Helper()
		c, err := client.Dial(ctx, "unix", path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var d int
		if err := c.Call(ctx, "subtract", []int{42, 23}, &d); err != nil || d != 19 {
			t.Fatal(d, err)
		}
	}
	call()

	second := startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "", "--ipc", path)
	if code := second.exit(t); code != 1 || !strings.Contains(second.stderr.String(), "another server is listening") {
		t.Fatalf("second server: exit %d, stderr %q", code, second.stderr.String())
	}
	call() // the first still has its socket

	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.exit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("socket file after shutdown: %v", err)
	}

	// a socket file left by a server that is gone
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	p = startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "", "--ipc", path)
	p.stderr.listening(t, "ipc")
	call()
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.exit(t)

	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, []byte("keep me"), 0o600)
	p = startBinary(t, nil, nil, "serve", "--tcp", "", "--http", "", "--ipc", plain)
	if code := p.exit(t); code != 1 || !strings.Contains(p.stderr.String(), "not a socket") {
		t.Fatalf("a plain file: exit %d, stderr %q", code, p.stderr.String())
	}
	if b, _ := os.ReadFile(plain); string(b) != "keep me" {
		t.Fatal("the plain file was touched")
	}
}
