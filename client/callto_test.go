package client_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/encode"
)

// TestCallTo: over TCP (NDJSON) a result far over the client's MaxMessage
// is written to the caller's writer as it comes, exact, while other calls
// on the same client are answered; a small result and an error response
// too. Over HTTP the result is held (within MaxMessage) and written.
func TestCallTo(t *testing.T) {
	checkGoroutines(t)
	srv := startTCP(t)
	c := dialTCP(t, srv.addr, &client.Options{MaxMessage: 64 << 10})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	const n = 5_000_000
	var wg sync.WaitGroup
	for range 3 { // other calls while the blob streams
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
			t.Fatal(err)
		}
		if buf.Len() != n+2 || buf.String() != `"`+strings.Repeat("x", n)+`"` {
			t.Fatalf("blob: %d bytes, %.40q", buf.Len(), buf.String())
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
	// A result over MaxMessage for CallRaw is still refused (the line is
	// skipped and the call fails), and the client goes on.
	if _, err := c.CallRaw(ctx, nil, "blob", []byte(`[100000]`)); err == nil {
		t.Fatal("CallRaw took a result over MaxMessage")
	}

	hc, err := client.DialHTTP(startHTTP(t).url, testOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	closeOnCleanup(t, hc)
	buf.Reset()
	if err := hc.CallTo(ctx, &buf, "blob", []byte(`[1000]`)); err != nil || buf.Len() != 1002 {
		t.Fatalf("http: %d bytes, %v", buf.Len(), err)
	}
}
