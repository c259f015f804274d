//go:build linux

package netserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame"
	"github.com/jetrpc/jetrpc/internal/testcert"
)

// parked returns how many connections of s are parked now, and how many
// parkings there were.
func (s *Server) parked() (n int, total uint64) {
	s.parker.mu.Lock()
	defer s.parker.mu.Unlock()
	return s.parker.n, s.parker.total
}

// openFDs counts the process's open descriptors.
func openFDs(t testing.TB) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// TestParkIdle: idle connections park without a goroutine each (or, with
// parking off, wait on one each), are served again when they call, are
// released when the peer closes them while parked, and are closed by
// IdleTimeout while parked; at the end no descriptor is left open, the
// poller's included.
func TestParkIdle(t *testing.T) {
	for _, m := range waitModes {
		t.Run(m.name, func(t *testing.T) {
			const n, idle = 40, 400 * time.Millisecond
			checkGoroutines(t)
			s := newServer(t, &Options{IdleTimeout: idle})
			s.idleRelease = 20 * time.Millisecond
			s.parker.off = m.off
			var released atomic.Int32
			s.testHookRelease = func(*conn) { released.Add(1) }
			ts := serveOn(t, s)
			fds := openFDs(t)
			goroutines := runtime.NumGoroutine()
			cs := make([]*client, n)
			for i := range cs {
				cs[i] = ts.dial(t, frame.NDJSON)
				expectResult(t, cs[i].call(subtractCall), "2", "19")
			}
			waitFor(t, "the connections to release their buffers", func() bool { return released.Load() >= n })
			want := 0
			if !m.off {
				want = n
			}
			waitFor(t, "the connections to park", func() bool { p, _ := s.parked(); return p == want })
			// Parked, a connection holds no goroutine; waiting, one each.
			// (The poller and sweeper are two; the client side none.)
			if g := runtime.NumGoroutine() - goroutines; !m.off && g > 4 || m.off && g < n {
				t.Errorf("%d idle connections, %d goroutines more than before", n, g)
			}
			for _, c := range cs { // served again, and idle again
				expectResult(t, c.call(subtractCall), "2", "19")
			}
			waitFor(t, "the connections to park again", func() bool { return released.Load() >= 2*n })
			for _, c := range cs[:n/2] { // the peer hangs up while parked
				c.nc.Close()
			}
			waitFor(t, "the closed connections to be released", func() bool { return ts.openConns() == n-n/2 })
			for _, c := range cs[n/2:] { // the rest: IdleTimeout
				c.expectClosed()
				c.nc.Close()
			}
			waitFor(t, "the idle connections to be released", func() bool { return ts.openConns() == 0 })
			waitFor(t, "the descriptors to be closed", func() bool { return openFDs(t) <= fds })
			if p, total := s.parked(); p != 0 || !m.off && total < 2*n || m.off && total != 0 {
				t.Errorf("%d parked at the end, %d parkings", p, total)
			}
		})
	}
}

// TestParkShutdown: Shutdown wakes parked connections and closes them at
// once (no IdleTimeout: nothing else would), and the poller ends with them.
func TestParkShutdown(t *testing.T) {
	for _, m := range waitModes {
		t.Run(m.name, func(t *testing.T) {
			checkGoroutines(t)
			s := newServer(t, nil)
			s.idleRelease = 20 * time.Millisecond
			s.parker.off = m.off
			var released atomic.Int32
			s.testHookRelease = func(*conn) { released.Add(1) }
			ts := serveOn(t, s)
			cs := make([]*client, 8)
			for i := range cs {
				cs[i] = ts.dial(t, frame.NDJSON)
				expectResult(t, cs[i].call(subtractCall), "2", "19")
			}
			waitFor(t, "the connections to release their buffers", func() bool { return released.Load() >= int32(len(cs)) })
			if !m.off {
				waitFor(t, "the connections to park", func() bool { p, _ := s.parked(); return p == len(cs) })
			}
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			if err := s.Shutdown(ctx); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			for _, c := range cs {
				c.expectClosed()
			}
			if p, _ := s.parked(); p != 0 {
				t.Errorf("%d connections parked after Shutdown", p)
			}
		})
	}
}

// TestParkUnix: a Unix socket connection parks too, and is served after.
func TestParkUnix(t *testing.T) {
	checkGoroutines(t)
	s := newServer(t, nil)
	s.idleRelease = 20 * time.Millisecond
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "jetrpc.sock"))
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s, addr: ln.Addr().String(), serve: make(chan error, 1)}
	go func() { ts.serve <- s.Serve(ln) }()
	t.Cleanup(func() { ts.shutdown(t) })
	nc, err := net.Dial("unix", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := &client{t: t, kind: frame.NDJSON, w: nc, nc: nc, fr: frame.NewReader(nc, frame.NDJSON, 0)}
	for i := range 3 {
		expectResult(t, c.call(subtractCall), "2", "19")
		waitFor(t, "the connection to park", func() bool { p, total := s.parked(); return p == 1 && total == uint64(i+1) })
	}
}

// TestParkBoundary hammers the hand-over: clients that call again right as
// their connection parks (at once, or a little later), over and over, on
// several connections at a time. Every call is answered: input that arrives
// while a connection parks wakes it. The same with parking off (a goroutine
// waits): it found a kick of the sweeper's for a release spell that landed
// after the reader had armed the next spell, which closed the connection as
// idle for IdleTimeout (conn.unkick's stale).
func TestParkBoundary(t *testing.T) {
	t.Run("parked", func(t *testing.T) { parkBoundary(t, false) })
	t.Run("goroutine", func(t *testing.T) { parkBoundary(t, true) })
}

func parkBoundary(t *testing.T, off bool) {
	const conns, rounds = 8, 60
	checkGoroutines(t)
	s := newServer(t, nil)
	s.idleRelease = 2 * time.Millisecond
	s.parker.off = off
	var mu sync.Mutex
	signal := map[string]chan struct{}{} // by the client's address
	s.testHookRelease = func(c *conn) {
		c.rd.relShift = 0 // keep the spell short: no back-off (the reader's field, under c.mu)
		mu.Lock()
		ch := signal[c.nc.RemoteAddr().String()]
		mu.Unlock()
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	ts := serveOn(t, s)
	delays := []time.Duration{0, 0, 0, 20 * time.Microsecond, 100 * time.Microsecond, 500 * time.Microsecond}
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for range conns {
		nc, err := net.DialTimeout("tcp", ts.addr, testTimeout)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		ch := make(chan struct{}, 1)
		mu.Lock()
		signal[nc.LocalAddr().String()] = ch
		mu.Unlock()
		wg.Go(func() {
			fr := frame.NewReader(nc, frame.NDJSON, 0)
			call := frame.AppendFrame(nil, frame.NDJSON, []byte(subtractCall))
			for i := range rounds {
				nc.SetDeadline(time.Now().Add(testTimeout))
				if _, err := nc.Write(call); err != nil {
					errs <- err
					return
				}
				if _, err := fr.Next(); err != nil {
					errs <- fmt.Errorf("call %d: %w", i, err)
					return
				}
				select {
				case <-ch:
				case <-time.After(testTimeout):
					errs <- fmt.Errorf("call %d: the connection did not release its buffers", i)
					return
				}
				if d := delays[rand.IntN(len(delays))]; d > 0 {
					time.Sleep(d)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_, total := s.parked()
	t.Logf("%d calls at the idle boundary, %d parkings", conns*rounds, total)
	if total == 0 && !off {
		t.Error("no connection parked")
	}
}

// TestParkDropped: a connection that parked while a call still runs, whose
// client stops reading the answer, is dropped after WriteTimeout: that
// wakes it, and it is released without Shutdown's help.
func TestParkDropped(t *testing.T) {
	checkGoroutines(t)
	s := newServer(t, &Options{WriteTimeout: 200 * time.Millisecond})
	s.idleRelease = 20 * time.Millisecond
	ts := serveOn(t, s)
	c := ts.dial(t, frame.NDJSON)
	c.send(`{"jsonrpc":"2.0","method":"blob","params":[268435456],"id":1}`) // 256 MiB, never read
	waitFor(t, "the connection to park", func() bool { p, _ := s.parked(); return p == 1 })
	waitFor(t, "the connection to be dropped and released", func() bool { return ts.openConns() == 0 })
	if p, _ := s.parked(); p != 0 {
		t.Errorf("%d parked", p)
	}
}

// TestParkShutdownRace: Shutdown that comes while a connection is about to
// park (its goroutine has ended reading, it is not parked yet) still closes
// it at once: the connection sees that Shutdown came first and goes on.
func TestParkShutdownRace(t *testing.T) {
	checkGoroutines(t)
	s := newServer(t, nil)
	s.idleRelease = 20 * time.Millisecond
	ts := serveOn(t, s)
	var once sync.Once
	shut := make(chan error, 1)
	s.parker.testHook = func(c *conn) {
		once.Do(func() {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				shut <- s.Shutdown(ctx)
			}()
			for !c.stopping.Load() {
				time.Sleep(time.Millisecond)
			}
		})
	}
	c := ts.dial(t, frame.NDJSON)
	expectResult(t, c.call(subtractCall), "2", "19")
	select {
	case err := <-shut:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("the connection did not park")
	}
	c.expectClosed()
}

// TestParkRenewed: a parked connection woken at the end of IdleTimeout
// with a call still running is not idle: it parks again, and is answered
// and then closed once idle.
func TestParkRenewed(t *testing.T) {
	const idle = 150 * time.Millisecond
	checkGoroutines(t)
	s := newServer(t, &Options{IdleTimeout: idle})
	s.idleRelease = 20 * time.Millisecond
	ts := serveOn(t, s)
	c := ts.dial(t, frame.NDJSON)
	c.send(`{"jsonrpc":"2.0","method":"sleep","params":[600],"id":1}`)
	waitFor(t, "the connection to park again after IdleTimeout", func() bool { _, total := s.parked(); return total >= 2 })
	expectResult(t, c.recv(), "1", "600")
	c.expectClosed()
}

// TestParkTLS: a TLS connection (whose tls.Conn may hold decrypted input)
// never parks: it gives its buffers back and waits on a goroutine, and is
// served after.
func TestParkTLS(t *testing.T) {
	certs := testcert.New(t, "test CA")
	checkGoroutines(t)
	s := newServer(t, &Options{TLS: certs.ServerConfig()})
	s.idleRelease = 20 * time.Millisecond
	var released atomic.Int32
	s.testHookRelease = func(*conn) { released.Add(1) }
	ts := serveOn(t, s)
	c, err := dialStreamTLS(frame.NDJSON)(ts.addr, certs.ClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for i := range 3 {
		if b, err := c.call(subtractCall); err != nil {
			t.Fatal(err)
		} else {
			expectResult(t, b, "2", "19")
		}
		waitFor(t, "the buffers to be given back", func() bool { return released.Load() == int32(i+1) })
	}
	if p, total := s.parked(); p != 0 || total != 0 {
		t.Errorf("%d TLS connections parked, %d parkings", p, total)
	}
}
