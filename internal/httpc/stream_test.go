package httpc

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestPostStream: a body read to its end (Content-Length or chunked)
// leaves the connection to the next request; one read in part, or cut
// off, closes it; a cut-off body reads io.ErrUnexpectedEOF after what
// came; a cancelled context ends a read at once.
func TestPostStream(t *testing.T) {
	c, conns := peer(t, func(c net.Conn, n int, body string) bool {
		switch body {
		case "length":
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
		case "chunked":
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2;x=1\r\nlo\r\n0\r\nT: 1\r\n\r\n")
		case "cut":
			io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel")
			return false
		case "stall":
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe")
		}
		return true
	})
	ctx := context.Background()
	read := func(body string, keep int) (string, error) {
		var got []byte
		err := c.PostStream(ctx, nil, []byte(body), func(status int, r io.Reader) error {
			if status != 200 {
				return errors.New("status")
			}
			b := make([]byte, 2)
			for len(got) < keep {
				n, err := r.Read(b)
				got = append(got, b[:n]...)
				if err == io.EOF {
					return nil
				} else if err != nil {
					return err
				}
			}
			return nil
		})
		return string(got), err
	}
	f := func(body string, keep int, want string, wantErr error, wantConns int32) {
		t.Helper()
		got, err := read(body, keep)
		if got != want || err != wantErr || conns.Load() != wantConns {
			t.Errorf("%s: %q %v on %d connections; want %q %v on %d", body, got, err, conns.Load(), want, wantErr, wantConns)
		}
	}
	f("length", 100, "hello", nil, 1)
	if _, body, err := post(c, "length"); body != "hello" || err != nil || conns.Load() != 1 {
		t.Fatalf("next Post: %q %v on %d connections", body, err, conns.Load())
	}
	f("chunked", 5, "hello", nil, 1) // its last chunk not read: closed
	f("chunked", 100, "hello", nil, 2)
	f("length", 3, "hell", nil, 2) // the end not read: closed
	f("length", 100, "hello", nil, 3)
	f("cut", 100, "hel", io.ErrUnexpectedEOF, 3)

	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	err := c.PostStream(cctx, nil, []byte("stall"), func(_ int, r io.Reader) error {
		_, err := io.ReadAll(r)
		return err
	})
	if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("cancelled: %v", err)
	}
}
