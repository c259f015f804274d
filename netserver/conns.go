package netserver

import (
	"context"
	"errors"
	"sync"
)

var errTooManyConns = errors.New("netserver: too many connections")

// connSet is the set of a server's open connections (TCP and stdio for a
// Server, WebSocket for an HTTP server: host.go), for MaxConns and Shutdown.
type connSet struct {
	max int // 0: unlimited

	mu     sync.Mutex
	closed bool
	// cs holds each connection c at cs[c.setAt]: 8 bytes a connection
	// where a map took about 29.
	cs []*core
	wg sync.WaitGroup // one per connection in cs
}

// add registers c, unless the set is closed (ErrServerClosed) or full; the
// caller must remove it when the connection ends.
func (s *connSet) add(c *core) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ErrServerClosed
	case s.max > 0 && len(s.cs) >= s.max:
		return errTooManyConns
	}
	c.setAt = int32(len(s.cs))
	s.cs = append(s.cs, c)
	s.wg.Add(1)
	return nil
}

// remove takes c, which add registered, out of the set.
func (s *connSet) remove(c *core) {
	s.mu.Lock()
	i, n := c.setAt, len(s.cs)-1
	s.cs[i] = s.cs[n]
	s.cs[i].setAt = i
	s.cs[n] = nil
	s.cs = s.cs[:n]
	c.setAt = -1
	s.mu.Unlock()
	s.wg.Done()
}

func (s *connSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.cs)
}

// close makes add fail from now on.
func (s *connSet) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// shutdown closes the set, stops every connection (each answers what it
// runs, then ends) and waits until all have ended. If ctx ends first, it
// aborts those still open and returns ctx.Err().
func (s *connSet) shutdown(ctx context.Context) error {
	s.close()
	for _, c := range s.snapshot() {
		c.stop()
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	for _, c := range s.snapshot() {
		c.abort()
	}
	return ctx.Err()
}

func (s *connSet) snapshot() []*core {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*core(nil), s.cs...)
}
