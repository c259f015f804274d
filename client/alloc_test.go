//go:build !race

package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/frame"
)

// TestCallRawAllocs: a raw call allocates nothing in steady state, counting
// the server's side too over TCP (both run in this process) and the
// client's alone over stdio.
func TestCallRawAllocs(t *testing.T) {
	checkGoroutines(t)
	s := startTCP(t)
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := func(name string, c *client.Client) {
		t.Helper()
		for _, ctx := range []context.Context{context.Background(), cancellable} {
			dst := make([]byte, 0, 64)
			params := []byte(`[42,23]`)
			var err error
			call := func() { dst, err = c.CallRaw(ctx, dst[:0], "subtract", params) }
			for range 100 {
				call()
			}
			if n := testing.AllocsPerRun(1000, call); n != 0 {
				t.Errorf("%s: CallRaw allocates %v times per call, want 0", name, n)
			}
			if err != nil || string(dst) != "19" {
				t.Errorf("%s: CallRaw = %s, %v", name, dst, err)
			}
		}
	}
	for _, kind := range []frame.Kind{frame.NDJSON, frame.Header, frame.Len32} {
		f("tcp-"+kind.String(), dialTCP(t, s.addr, &client.Options{Framing: kind}))
	}
	c, _ := startStdio(t, frame.Header, nil)
	f("stdio-header", c)
}

// TestCallRawAllocsHTTP: over HTTP too, also when answers of different
// sizes alternate after many small ones (fasthttp's body pool calibrates
// every 42,000 uses and then drops buffers larger than most: the client
// keeps its own response buffers).
func TestCallRawAllocsHTTP(t *testing.T) {
	checkGoroutines(t)
	s := startHTTP(t)
	c, err := client.DialHTTP(s.url, testOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	closeOnCleanup(t, c)
	ctx := context.Background()
	small := []byte(`[42,23]`)
	big := []byte(`[` + strings.Repeat(`"0123456789abcdef",`, 64) + `0]`) // ~1.2 KB echoed
	dst := make([]byte, 0, 2048)
	for range 43_000 { // past one calibration of fasthttp's pools, all small
		if dst, err = c.CallRaw(ctx, dst[:0], "subtract", small); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	call := func() {
		if i++; i%2 == 0 {
			dst, err = c.CallRaw(ctx, dst[:0], "subtract", small)
		} else {
			dst, err = c.CallRaw(ctx, dst[:0], "echo", big)
		}
	}
	for range 100 {
		call()
	}
	if n := testing.AllocsPerRun(1000, call); n != 0 {
		t.Errorf("CallRaw over HTTP allocates %v times per call (client and server), want 0", n)
	}
	if err != nil {
		t.Error(err)
	}
}
