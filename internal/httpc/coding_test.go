package httpc

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net"
	neturl "net/url"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/internal/httpz/bombtest"
)

func gzipped(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func answer(ce string, body []byte) string {
	return "HTTP/1.1 200 OK\r\nContent-Encoding: " + ce + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body)
}

// TestCoded: the client asks for gzip and takes gzip (and deflate)
// answers, inflated within MaxBody; a body that inflates past it is
// ErrBodyTooLarge, one that does not decode or has another coding
// ErrContentEncoding.
func TestCoded(t *testing.T) {
	var zl bytes.Buffer
	zw := zlib.NewWriter(&zl)
	zw.Write([]byte("deflated"))
	zw.Close()
	chunked := gzipped([]byte(`{"ok":true}`))
	f := func(name, ans string, wantBody string, wantErr error) {
		t.Helper()
		c, _ := peer(t, func(c net.Conn, _ int, _ string) bool {
			io.WriteString(c, ans)
			return true
		})
		for i := range 2 { // the connection serves again after each
			_, body, err := post(c, "{}")
			if body != wantBody && wantErr == nil || !errors.Is(err, wantErr) {
				t.Errorf("%s #%d: %q %v, want %q %v", name, i, body, err, wantBody, wantErr)
			}
		}
	}
	f("gzip", answer("gzip", gzipped([]byte("hello"))), "hello", nil)
	f("x-gzip", answer("x-gzip", gzipped([]byte("hello"))), "hello", nil)
	f("deflate", answer("deflate", zl.Bytes()), "deflated", nil)
	f("identity", answer("identity", []byte("plain")), "plain", nil)
	f("chunked gzip", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"+
		strconv.FormatInt(int64(len(chunked)), 16)+"\r\n"+string(chunked)+"\r\n0\r\n\r\n", `{"ok":true}`, nil)
	f("204 gzip", "HTTP/1.1 204 No Content\r\nContent-Encoding: gzip\r\n\r\n", "", nil)
	f("inflates past MaxBody", answer("gzip", gzipped(make([]byte, 10<<10))), "", ErrBodyTooLarge)
	f("not gzip", answer("gzip", []byte("hello")), "", ErrContentEncoding)
	f("brotli", answer("br", []byte("hello")), "", ErrContentEncoding)

	u, _ := neturl.Parse("http://127.0.0.1:1/")
	for _, o := range []struct {
		opts Options
		want bool
	}{{Options{}, true}, {Options{NoCompression: true}, false}, {Options{Header: "accept-encoding: br\r\n"}, false}} {
		c, err := New(u, o.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(c.prefix, []byte("Accept-Encoding: gzip\r\n")); got != o.want {
			t.Errorf("%+v: asks for gzip %v, want %v", o.opts, got, o.want)
		}
	}
}

// TestCodedBomb: 1 MiB of gzip from a server that inflates to 1 GiB is
// ErrBodyTooLarge at the client's 4 MiB MaxBody, allocating about that.
func TestCodedBomb(t *testing.T) {
	bomb := bombtest.Gzip(1 << 10)
	c, _ := peer(t, func(c net.Conn, _ int, _ string) bool {
		io.WriteString(c, answer("gzip", bomb))
		return true
	})
	u, _ := neturl.Parse("http://" + c.addr + "/")
	big, err := New(u, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer big.CloseIdleConnections()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var r Response
	err = big.Post(nil, []byte("{}"), &r, time.Now().Add(10*time.Second))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("bomb: %v, want ErrBodyTooLarge", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 32<<20 {
		t.Errorf("allocated %d MiB for a bomb refused at 4 MiB", d>>20)
	}
}
