//go:build unix

package rawio_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/rawio"
)

// pair returns the two ends of a loopback TCP connection; the test closes
// them.
func pair(t *testing.T) (a, b net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type res struct {
		c   net.Conn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := ln.Accept()
		ch <- res{c, err}
	}()
	a, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Cleanup(func() { a.Close(); r.c.Close() })
	return a, r.c
}

func TestReadWrite(t *testing.T) {
	a, b := pair(t)
	ra, rb := rawio.Of(a), rawio.Of(b)
	if ra == nil || rb == nil {
		t.Fatal("Of: nil for a *net.TCPConn")
	}
	msg := bytes.Repeat([]byte("0123456789"), 100_000) // 1 MB: the writer waits for the reader
	done := make(chan error, 1)
	go func() {
		n, err := ra.Write(msg)
		if err == nil && n != len(msg) {
			err = io.ErrShortWrite
		}
		done <- err
		a.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(rb) // until io.EOF
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Write: %v", err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("read %d bytes, want the %d written", len(got), len(msg))
	}
	if n, err := rb.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Fatalf("Read after the end: %d, %v; want 0, io.EOF", n, err)
	}
	if n, err := rb.Read(nil); n != 0 || err != nil {
		t.Fatalf("Read(nil): %d, %v", n, err)
	}
}

func TestTryWrite(t *testing.T) {
	a, b := pair(t)
	ra := rawio.Of(a)
	chunk := make([]byte, 1<<20)
	total := 0
	for i := 0; ; i++ {
		if i == 1000 {
			t.Fatal("TryWrite never found the socket full")
		}
		n, err := ra.TryWrite(chunk)
		if err != nil {
			t.Fatalf("TryWrite: %v", err)
		}
		total += n
		if n < len(chunk) {
			break // full, and it did not wait
		}
	}
	// What it wrote arrives whole.
	b.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(b, make([]byte, total)); err != nil {
		t.Fatalf("reading the %d bytes TryWrite wrote: %v", total, err)
	}
}

func TestDeadlineAndClose(t *testing.T) {
	a, _ := pair(t)
	ra := rawio.Of(a)
	a.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := ra.Read(make([]byte, 8))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	// Named as net.Conn names it (servers log it), not "raw-read".
	if oe, ok := err.(*net.OpError); !ok || oe.Op != "read" || !oe.Timeout() {
		t.Errorf("Read past the deadline: %#v, want a *net.OpError (read) that is a timeout", err)
	}
	a.SetReadDeadline(time.Time{})
	done := make(chan error, 1)
	go func() {
		_, err := ra.Read(make([]byte, 8))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	a.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Read of a closed connection: %v, want net.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end a waiting Read")
	}
	_, err = ra.Write([]byte("x"))
	if !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write to a closed connection: %v, want net.ErrClosed", err)
	}
	if oe, ok := err.(*net.OpError); !ok || oe.Op != "write" {
		t.Errorf("Write to a closed connection: %#v, want a *net.OpError (write)", err)
	}
}

// TestReset: a connection reset by the peer fails a Read as net.Conn's
// does, with a *net.OpError around the system call's error.
func TestReset(t *testing.T) {
	a, b := pair(t)
	rb := rawio.Of(b)
	a.(*net.TCPConn).SetLinger(0) // Close sends a reset
	a.Close()
	b.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := rb.Read(make([]byte, 8))
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "read" || !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("Read after a reset: %#v, want a *net.OpError (read) of ECONNRESET", err)
	}
	if oe.Addr == nil || oe.Source == nil {
		t.Errorf("the error names no addresses: %v", err)
	}
}

// wrapped hands its socket out as fasthttp's hijacked connections do.
type wrapped struct{ net.Conn }

func (w wrapped) UnsafeConn() net.Conn { return w.Conn }

// holder reads and writes its socket through a Conn of its own, as
// nethttp's connections do.
type holder struct {
	net.Conn
	raw *rawio.Conn
}

func (h holder) RawIO() *rawio.Conn { return h.raw }

func TestOf(t *testing.T) {
	a, _ := pair(t)
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	if rawio.Of(p1) != nil || rawio.OfWriter(p1) != nil {
		t.Error("Of: a Conn for a net.Pipe")
	}
	if rawio.Of(wrapped{a}) != nil {
		t.Error("Of: a Conn for a wrapper, which may hold input read ahead")
	}
	if rawio.OfWriter(wrapped{a}) == nil {
		t.Error("OfWriter: no Conn for a wrapper with UnsafeConn")
	}
	h := holder{Conn: a, raw: rawio.Of(a)}
	if h.raw == nil || rawio.Of(h) != h.raw || rawio.OfWriter(wrapped{h}) != h.raw {
		t.Error("Of, OfWriter: not the Conn a wrapper hands out with RawIO")
	}
	if rawio.Of(holder{Conn: a}) != nil || rawio.OfWriter(wrapped{holder{Conn: a}}) != nil {
		t.Error("Of, OfWriter: a Conn for a wrapper whose RawIO is nil")
	}
	dir := t.TempDir()
	ln, err := net.Listen("unix", dir+"/s")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	u, err := net.Dial("unix", dir+"/s")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if rawio.Of(u) == nil {
		t.Error("Of: nil for a *net.UnixConn")
	}
}
