package client_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/encode"
)

// TestCallToHTTP: over HTTP, plain and gzip-coded, a result far over the
// client's MaxMessage is written to the writer exact while other calls on
// the same client are answered; a small result, an error response and a
// CallRaw over MaxMessage behave as before.
func TestCallToHTTP(t *testing.T) {
	checkGoroutines(t)
	url := startHTTP(t).url
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	for _, zmin := range []int{-1, 0} { // -1: no Accept-Encoding: gzip
		c, err := client.DialHTTP(url, testOptions(&client.Options{MaxMessage: 64 << 10, CompressMin: zmin}))
		if err != nil {
			t.Fatal(err)
		}
		closeOnCleanup(t, c)
		const n = 5_000_000
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				for range 50 {
					out, err := c.CallRaw(ctx, nil, "subtract", []byte(`[5,3]`))
					if err != nil || string(out) != "2" {
						t.Errorf("subtract: %s %v", out, err)
						return
					}
				}
			})
		}
		for range 2 {
			var buf bytes.Buffer
			if err := c.CallTo(ctx, &buf, "blob", []byte(`[5000000]`)); err != nil {
				t.Fatal(zmin, err)
			}
			if buf.Len() != n+2 || buf.String() != `"`+strings.Repeat("x", n)+`"` {
				t.Fatalf("blob %d: %d bytes, %.40q", zmin, buf.Len(), buf.String())
			}
		}
		wg.Wait()
		var buf bytes.Buffer
		if err := c.CallTo(ctx, &buf, "subtract", []byte(`[5,3]`)); err != nil || buf.String() != "2" {
			t.Fatalf("small: %q %v", buf.String(), err)
		}
		buf.Reset()
		var re *encode.Error
		if err := c.CallTo(ctx, &buf, "blob", []byte(`[-1]`)); !errors.As(err, &re) || re.Code != -32602 || buf.Len() != 0 {
			t.Fatalf("error response: %v, wrote %q", err, buf.String())
		}
		if _, err := c.CallRaw(ctx, nil, "blob", []byte(`[100000]`)); err == nil {
			t.Fatal("CallRaw took a result over MaxMessage")
		}
		if out, err := c.CallRaw(ctx, nil, "subtract", []byte(`[5,3]`)); err != nil || string(out) != "2" {
			t.Fatalf("after: %s %v", out, err)
		}
	}
}

// fakeHTTP serves each request on a connection with answer(id), raw
// bytes written as they are, then closes the connection when close says
// so. It returns the URL.
func fakeHTTP(t *testing.T, answer func(id string) []byte, closeAfter bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer nc.Close()
				br := bufio.NewReader(nc)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					_, rest, _ := bytes.Cut(body, []byte(`"id":`))
					id, _, _ := bytes.Cut(rest, []byte(","))
					id, _, _ = bytes.Cut(id, []byte("}"))
					nc.Write(answer(string(id)))
					if closeAfter {
						return
					}
				}
			})
		}
	})
	return "http://" + ln.Addr().String() + "/"
}

// chunk frames b as one HTTP chunk.
func chunk(b []byte) []byte {
	return append(append([]byte(strconv.FormatInt(int64(len(b)), 16)+"\r\n"), b...), "\r\n"...)
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestCallToHTTPCut: a body cut off (no last chunk, a short
// Content-Length, a gzip stream without its trailer) is ErrResultCut
// after what came was written; whole ones, chunked or gzip-coded, are
// written exact.
func TestCallToHTTPCut(t *testing.T) {
	checkGoroutines(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	result := `"` + strings.Repeat("y", 100_000) + `"`
	resp := func(id string) []byte { return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":` + result + "}\n") }
	const chunkedHead = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
	f := func(name string, answer func(id string) []byte, wantErr error, want string) {
		t.Helper()
		c, err := client.DialHTTP(fakeHTTP(t, answer, wantErr != nil), testOptions(&client.Options{MaxMessage: 1 << 10}))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var buf bytes.Buffer
		if err := c.CallTo(ctx, &buf, "blob", []byte(`[1]`)); err != wantErr || buf.String() != want {
			t.Errorf("%s: %v (want %v), wrote %d bytes %.30q", name, err, wantErr, buf.Len(), buf.String())
		}
	}
	f("chunked", func(id string) []byte {
		r := resp(id)
		return append(append(append([]byte(chunkedHead+"\r\n"), chunk(r[:500])...), chunk(r[500:])...), "0\r\n\r\n"...)
	}, nil, result)
	f("chunked cut", func(id string) []byte {
		r := resp(id)
		return append([]byte(chunkedHead+"\r\n"), chunk(r[:50_000])...)
	}, client.ErrResultCut, result[:50_000-len(`{"jsonrpc":"2.0","id":1,"result":`)])
	f("length cut", func(id string) []byte {
		r := resp(id)
		return append([]byte("HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(r))+"\r\n\r\n"), r[:60_000]...)
	}, client.ErrResultCut, result[:60_000-len(`{"jsonrpc":"2.0","id":1,"result":`)])
	f("gzip", func(id string) []byte {
		z := gzipped(resp(id))
		return append(append([]byte(chunkedHead+"Content-Encoding: gzip\r\n\r\n"), chunk(z)...), "0\r\n\r\n"...)
	}, nil, result)
	f("gzip cut", func(id string) []byte {
		z := gzipped(resp(id))
		z = z[:len(z)-8] // no trailer
		return append(append([]byte(chunkedHead+"Content-Encoding: gzip\r\n\r\n"), chunk(z)...), "0\r\n\r\n"...)
	}, client.ErrResultCut, result+"}\n") // all came but the trailer: written as it came
}
