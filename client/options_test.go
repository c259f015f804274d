package client_test

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/netserver"
)

func TestOptionErrors(t *testing.T) {
	ctx := context.Background()
	bad := &client.Options{Framing: frame.Len32 + 1}
	if _, err := client.Dial(ctx, "tcp", "127.0.0.1:1", bad); err == nil {
		t.Error("Dial with an unknown framing: no error")
	}
	if _, err := client.NewStdio(exec.Command("true"), bad); err == nil {
		t.Error("NewStdio with an unknown framing: no error")
	}
	cmd := exec.Command("true")
	cmd.Stdout = new(nopWriter)
	if _, err := client.NewStdio(cmd, nil); err == nil {
		t.Error("NewStdio with cmd.Stdout set: no error")
	}
	if _, err := client.NewStdio(exec.Command("/nonexistent/jetrpc"), nil); err == nil {
		t.Error("NewStdio of a missing program: no error")
	}
	for _, url := range []string{"ftp://x/", "http://", "::", "localhost:8080"} {
		if _, err := client.DialHTTP(url, nil); err == nil {
			t.Errorf("DialHTTP(%q): no error", url)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("NewConn with an unknown framing: no panic")
			}
		}()
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		client.NewConn(a, bad)
	}()
}

type nopWriter struct{}

func (*nopWriter) Write(b []byte) (int, error) { return len(b), nil }

// TestUnix calls over a unix socket and over an in-memory pipe (NewConn).
func TestUnix(t *testing.T) {
	checkGoroutines(t)
	s := netserver.New(newEngine(t), &netserver.Options{Logger: quiet})
	path := filepath.Join(t.TempDir(), "rpc.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	defer func() {
		s.Shutdown(context.Background())
		<-done
	}()
	ctx := context.Background()
	c, err := client.Dial(ctx, "unix", path, testOptions(&client.Options{Framing: frame.Len32}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := c.CallRaw(ctx, nil, "subtract", []byte(`[5,2]`)); err != nil || string(got) != "3" {
		t.Errorf("unix: %s, %v", got, err)
	}

	a, b := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- s2(t).ServeStdio(b, b) }()
	pc := client.NewConn(a, testOptions(nil))
	if got, err := pc.CallRaw(ctx, nil, "subtract", []byte(`[5,2]`)); err != nil || string(got) != "3" {
		t.Errorf("pipe: %s, %v", got, err)
	}
	if err := pc.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// s2 is a second demo server for the pipe.
func s2(t *testing.T) *netserver.Server {
	return netserver.New(newEngine(t), &netserver.Options{Logger: quiet})
}
