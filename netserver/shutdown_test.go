package netserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame"
)

// TestShutdownInFlight: calls in flight at Shutdown are answered before
// their connections close.
func TestShutdownInFlight(t *testing.T) {
	var started atomic.Int32
	ts := startServer(t, nil, countStarts("sleep", &started))
	a, b := ts.dial(t, frame.NDJSON), ts.dial(t, frame.Len32)
	a.send(`{"jsonrpc":"2.0","method":"sleep","params":[300],"id":1}`)
	a.send(`{"jsonrpc":"2.0","method":"sleep","params":[300],"id":2}`)
	b.send(`{"jsonrpc":"2.0","method":"sleep","params":[300],"id":3}`)
	waitFor(t, "three calls in flight", func() bool { return started.Load() == 3 })

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- ts.Shutdown(ctx) }()
	ids := map[string]bool{}
	for range 2 {
		r := decodeResponse(t, a.recv())
		if r.Error != nil || string(r.Result) != "300" {
			t.Errorf("response %+v", r)
		}
		ids[string(r.ID)] = true
	}
	expectResult(t, b.recv(), "3", "300")
	if !ids["1"] || !ids["2"] {
		t.Errorf("answered %v", ids)
	}
	a.expectClosed()
	b.expectClosed()
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-ts.serve; err != ErrServerClosed {
		t.Fatalf("Serve: %v", err)
	}
	ts.serve <- ErrServerClosed
}

// TestShutdownForced: when Shutdown's context ends first, the handlers are
// cancelled, connections closed, and ctx.Err() returned.
func TestShutdownForced(t *testing.T) {
	var started atomic.Int32
	ts := startServer(t, nil, countStarts("sleep", &started))
	c := ts.dial(t, frame.NDJSON)
	c.send(`{"jsonrpc":"2.0","method":"sleep","params":[60000],"id":1}`)
	waitFor(t, "the call in flight", func() bool { return started.Load() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := ts.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	c.expectClosed()
	waitFor(t, "the connection to end", func() bool { return ts.openConns() == 0 })
}

// TestShutdownStdio: Shutdown interrupts a stdio reader blocked in Read.
func TestShutdownStdio(t *testing.T) {
	checkGoroutines(t)
	s := newServer(t, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(inR, outW) }()
	c := &client{t: t, kind: frame.NDJSON, w: inW, fr: frame.NewReader(outR, frame.NDJSON, 0)}
	expectResult(t, c.call(subtractCall), "2", "19")
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != ErrServerClosed {
		t.Fatalf("ServeStdio: %v", err)
	}
	if err := s.ServeStdio(inR, outW); err != ErrServerClosed {
		t.Fatalf("ServeStdio after Shutdown: %v", err)
	}
}

func TestServeAfterShutdown(t *testing.T) {
	checkGoroutines(t)
	s := newServer(t, nil)
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(ln); err != ErrServerClosed {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := ln.Accept(); err == nil {
		t.Fatal("Serve did not close the listener")
	}
}

// TestShutdownBusyClient: a client still sending when Shutdown closes its
// connection, and reading only after that, gets the response to its call in
// flight.
func TestShutdownBusyClient(t *testing.T) {
	var started atomic.Int32
	ts := startServer(t, nil, countStarts("sleep", &started))
	c := ts.dial(t, frame.NDJSON)
	c.send(`{"jsonrpc":"2.0","method":"sleep","params":[200],"id":"s"}`)
	waitFor(t, "the call in flight", func() bool { return started.Load() == 1 })
	stopWriting := make(chan struct{})
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		msg := frame.AppendFrame(nil, frame.NDJSON, []byte(subtractCall))
		for {
			select {
			case <-stopWriting:
				return
			default:
			}
			if _, err := c.nc.Write(msg); err != nil {
				return
			}
		}
	}()
	defer func() { close(stopWriting); <-writerDone }()
	// Read while Shutdown runs, as a live client does: a server cannot hand
	// responses to a peer that never reads (that is WriteTimeout's case).
	c.nc.SetReadDeadline(time.Now().Add(testTimeout))
	got := make(chan error, 1)
	go func() {
		for {
			msg, err := c.fr.Next()
			if err != nil {
				got <- err
				return
			}
			var r struct{ ID json.RawMessage }
			if err := json.Unmarshal(msg, &r); err != nil {
				got <- err
				return
			}
			if string(r.ID) == `"s"` {
				got <- nil
				return
			}
		}
	}()
	if err := ts.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("connection ended with %v before the sleep's response", err)
	}
	c.expectClosed()
}
