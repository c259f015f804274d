package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame"
)

// TestBinaryServe runs the built binary on free ports: every spec vector over
// TCP (NDJSON) and over HTTP, then SIGTERM while a call is in flight, which
// must still be answered before the process exits 0.
func TestBinaryServe(t *testing.T) {
	p := startBinary(t, nil, nil, "serve", "--tcp", "127.0.0.1:0", "--http", "127.0.0.1:0")
	addrs := p.stderr.listening(t, "tcp", "http")
	httpVectors(t, "http://"+addrs["http"]+"/")

	conn, err := net.DialTimeout("tcp", addrs["tcp"], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	streamVectors(t, conn, conn, frame.NDJSON)

	// sleep, then subtract on the same connection: once subtract is
	// answered, the server has read sleep and started it.
	fr := frame.NewReader(conn, frame.NDJSON, 0)
	_, err = io.WriteString(conn, `{"jsonrpc":"2.0","method":"sleep","params":[300],"id":"slow"}`+"\n"+
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"fast"}`+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if f, err := fr.Next(); err != nil || !bytes.Contains(f, []byte(`"id":"fast"`)) {
		t.Fatalf("first answer: %s %v, want subtract's", f, err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if f, err := fr.Next(); err != nil || string(f) != `{"jsonrpc":"2.0","id":"slow","result":300}` {
		t.Errorf("call in flight: %s %v, want its result", f, err)
	}
	if f, err := fr.Next(); err != io.EOF {
		t.Errorf("after the last answer: %s %v, want EOF", f, err)
	}
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0", code)
	}
}

// TestBinaryStdio pipes every spec vector through the binary's stdin and
// stdout with header framing; at EOF of stdin it exits 0.
func TestBinaryStdio(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	defer outR.Close()
	p := startBinary(t, inR, outW, "serve", "--stdio", "--framing", "header")
	inR.Close() // the child has its own copies
	outW.Close()
	outR.SetDeadline(time.Now().Add(30 * time.Second))
	inW.SetDeadline(time.Now().Add(30 * time.Second))

	streamVectors(t, outR, inW, frame.Header)
	inW.Close()
	if rest, err := io.ReadAll(outR); err != nil || len(rest) != 0 {
		t.Errorf("after EOF of stdin: %q %v, want EOF", rest, err)
	}
	if code := p.exit(t); code != 0 {
		t.Errorf("exit %d at EOF, want 0", code)
	}
	if strings.Contains(p.stderr.String(), "listening") {
		t.Errorf("--stdio opened listeners:\n%s", p.stderr.String())
	}
}
