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
// for 0.7 s, has its read and write deadlines set a few times a second
// (the idle ones move when a quarter of the spell early, the write one when
// an eighth), not twice per call; and the idle release still happens once
// the connection goes silent.
func TestDeadlinesCoarse(t *testing.T) {
	checkGoroutines(t)
	s := newServer(t, nil)
	s.idleRelease = 200 * time.Millisecond
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
	// A quarter of the 200 ms release spell, an eighth of the 30 s write
	// timeout: at most one read deadline per 50 ms, one write deadline.
	maxReads := int64(spent/(50*time.Millisecond)) + 3
	if r, w := cl.reads.Load(), cl.writes.Load(); r > maxReads || w > 2 {
		t.Errorf("%d calls in %v: %d read deadlines (want at most %d), %d write deadlines (want at most 2)",
			calls, spent.Round(time.Millisecond), r, maxReads, w)
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
