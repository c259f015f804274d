package netserver

// NOTE: the idle deadlines of TCP connections without a runtime timer each.
// A connection waiting for input is idle from the start of its spell; it
// gives its buffers back after idleRelease and is closed after IdleTimeout
// (stream_io.go). Setting a read deadline for every spell modifies the
// connection's runtime timer, on timer heaps shared by all the connections
// of a P: at thousands of connections and a few calls a second each, those
// modifications and the timers firing were a cost per call that grew with
// the connections. Instead, each connection notes when its spell began and
// how long it may last (two atomic stores, read from the sweeper's clock),
// and one goroutine per Server, the sweeper, wakes every tick, reads the
// clock and kicks the connections whose spell is over: it sets their read
// deadline in the past, under c.mu, which wakes the reader with a timeout
// (timedOut); a parked connection, which has no reader, is resumed on a new
// goroutine that finds that deadline (park.go). The sweeper runs while the
// Server has such connections.

import (
	"sync"
	"sync/atomic"
	"time"
)

// sweeper is a Server's.
type sweeper struct {
	start time.Time
	clock atomic.Int64 // ns since start (at least 1), as of the last tick

	mu    sync.Mutex
	conns []*conn // each one's sweepAt is its index
	tick  time.Duration
	stop  chan struct{} // nil when not running
}

// maxTick bounds the sweeper's tick: a spell ends between its length plus
// one tick and plus two (the clock is a tick old at most when it begins).
const maxTick = 250 * time.Millisecond

// now is the sweeper's clock: ns since it started, a tick old at most.
func (s *sweeper) now() int64 { return s.clock.Load() }

// add registers c, starting the sweeper if it does not run; the shortest
// spell a connection of the server has is shortest.
func (s *sweeper) add(c *conn, shortest time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.sweepAt = int32(len(s.conns))
	s.conns = append(s.conns, c)
	if s.stop != nil {
		return
	}
	if s.start.IsZero() {
		s.start = time.Now()
	}
	s.tick = min(max(shortest/4, time.Millisecond), maxTick)
	s.clock.Store(int64(time.Since(s.start)) + 1)
	s.stop = make(chan struct{})
	go s.run(s.stop, s.tick)
}

// remove unregisters c (if registered); with the last one the sweeper stops.
func (s *sweeper) remove(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := c.sweepAt
	if i < 0 {
		return
	}
	last := len(s.conns) - 1
	s.conns[i] = s.conns[last]
	s.conns[i].sweepAt = i
	s.conns[last] = nil
	s.conns = s.conns[:last]
	c.sweepAt = -1
	if last == 0 && s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
}

func (s *sweeper) run(stop chan struct{}, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	var due []*conn
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		now := int64(time.Since(s.start)) + 1
		s.clock.Store(now)
		s.mu.Lock()
		for _, c := range s.conns {
			if c.rd.spellOver(now, tick) {
				due = append(due, c)
			}
		}
		s.mu.Unlock()
		for i, c := range due {
			c.kick(now, tick)
			due[i] = nil
		}
		due = due[:0]
	}
}

// spellOver reports whether the idle spell r waits in is over at now: it
// began at most a tick before waitSince says.
func (r *connReader) spellOver(now int64, tick time.Duration) bool {
	return r.c.srv.spellOver(r.waitSince.Load(), now, tick)
}

// spellOver reports whether the idle spell that began as w says is over at
// now.
func (s *Server) spellOver(w, now int64, tick time.Duration) bool {
	return w > 0 && now-w>>5 >= int64(s.spell(w)+tick)
}

// kick wakes c's reader with a timeout when its spell is still over, unless
// Shutdown stopped it (then its deadline is already in the past).
func (c *conn) kick(now int64, tick time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.rd.waitSince.Load() // the reader may begin a new spell meanwhile (arm)
	if c.stopping.Load() || c.rd.kicked || !c.srv.spellOver(w, now, tick) {
		return
	}
	c.rd.kicked, c.rd.kickedAt = true, w
	c.nc.SetReadDeadline(aLongTimeAgo)
	c.unpark() // a parked connection has no read to wake (park.go)
}
