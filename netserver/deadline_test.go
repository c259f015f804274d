package netserver

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetrpc/jetrpc/frame"
)

// countingListener counts the deadlines its connections are given.
type countingListener struct {
	net.Listener
	reads, writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: nc, l: l}, nil
}

type countingConn struct {
	net.Conn
	l *countingListener
}

func (c *countingConn) SetReadDeadline(t time.Time) error {
	c.l.reads.Add(1)
	return c.Conn.SetReadDeadline(t)
}

func (c *countingConn) SetWriteDeadline(t time.Time) error {
	c.l.writes.Add(1)
	return c.Conn.SetWriteDeadline(t)
}

// TestDeadlinesCoarse: a connection that calls and waits for each answer,
// for 0.7 s, sets no read deadline (its idle spells are the sweeper's) and
// its write deadline once (it moves when an eighth of WriteTimeout early),
// not one of each per call; and it still gives its buffers back once it
// goes silent, and is served after.
func TestDeadlinesCoarse(t *testing.T) {
	checkGoroutines(t)
	s := newServer(t, nil)
	// A second of silence releases the buffers: a busy spell's gaps stay far
	// below it even when a loaded -race run stalls the client (at 200 ms a
	// stall in .ci/run's -race pass released them mid-spell).
	s.idleRelease = time.Second
	released := make(chan struct{}, 1)
	s.testHookRelease = func(*conn) {
		select {
		case released <- struct{}{}:
		default:
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	ts := &testServer{Server: s, addr: ln.Addr().String(), serve: make(chan error, 1)}
	go func() { ts.serve <- s.Serve(cl) }()
	t.Cleanup(func() { ts.shutdown(t) })

	c := ts.dial(t, frame.NDJSON)
	calls := 0
	start := time.Now()
	for ; calls < 200 || time.Since(start) < 700*time.Millisecond; calls++ {
		expectResult(t, c.call(subtractCall), "2", "19")
	}
	spent := time.Since(start)
	if r, w := cl.reads.Load(), cl.writes.Load(); r > 0 || w > 1 {
		t.Errorf("%d calls in %v: %d read deadlines (want none), %d write deadlines (want 1)",
			calls, spent.Round(time.Millisecond), r, w)
	}
	t.Logf("%d calls in %v: %d read and %d write deadlines", calls, spent.Round(time.Millisecond), cl.reads.Load(), cl.writes.Load())
	select {
	case <-released:
		t.Fatal("buffers released while the connection was busy")
	default:
	}
	select {
	case <-released:
	case <-time.After(testTimeout):
		t.Fatal("an idle connection did not give its buffers back")
	}
	expectResult(t, c.call(subtractCall), "2", "19")
}

// TestSweeperIdle: the sweeper ends idle spells on time: a connection that
// calls every 60 ms for 0.6 s under IdleTimeout 200 ms stays open, and once
// silent it is closed after 200 ms plus at most two ticks (50 ms each) of
// the sweeper; the sweeper's goroutine ends with the last connection.
func TestSweeperIdle(t *testing.T) {
	const idle = 200 * time.Millisecond
	ts := startServer(t, &Options{IdleTimeout: idle})
	c := ts.dial(t, frame.NDJSON)
	for range 10 {
		expectResult(t, c.call(subtractCall), "2", "19")
		time.Sleep(60 * time.Millisecond)
	}
	expectResult(t, c.call(subtractCall), "2", "19")
	silent := time.Now()
	c.expectClosed()
	if d := time.Since(silent); d < idle || d > idle+2*idle/4+300*time.Millisecond {
		t.Errorf("closed %v after its last call, want %v plus two ticks (and slack)", d.Round(time.Millisecond), idle)
	}
}

// TestReleaseAdapts: a connection that calls every 1.5 release spells gives
// its buffers back only the first time: a call soon after a release doubles
// its spell, so it then waits longer than the gaps. After a long silence
// (16 spells) its spell is idleRelease again.
func TestReleaseAdapts(t *testing.T) {
	checkGoroutines(t)
	s := newServer(t, nil)
	s.idleRelease = 20 * time.Millisecond
	var released atomic.Int32
	s.testHookRelease = func(*conn) { released.Add(1) }
	ts := serveOn(t, s)
	c := ts.dial(t, frame.NDJSON)
	calls := func(what string, want int32) {
		t.Helper()
		before := released.Load()
		for range 12 {
			expectResult(t, c.call(subtractCall), "2", "19")
			time.Sleep(30 * time.Millisecond)
		}
		if n := released.Load() - before; n < 1 || n > want {
			t.Errorf("%s: %d releases in 12 calls 1.5 spells apart, want 1 to %d", what, n, want)
		}
	}
	calls("first", 2)
	if raceEnabled {
		// Under the race detector the calls come slower than 1.5 spells, so
		// the spell doubles more often and one second of silence is not
		// the 16 spells that reset it; the plain run checks the reset.
		return
	}
	time.Sleep(time.Second) // 25 of the 40 ms spells: a release, then a reset
	calls("after a silence", 3)
}
