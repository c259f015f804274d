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
	m      map[*core]struct{}
	wg     sync.WaitGroup // one per connection in m
}

// add registers c, unless the set is closed (ErrServerClosed) or full; the
// caller must remove it when the connection ends.
func (s *connSet) add(c *core) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ErrServerClosed
	case s.max > 0 && len(s.m) >= s.max:
		return errTooManyConns
	}
	if s.m == nil {
		s.m = make(map[*core]struct{})
	}
	s.m[c] = struct{}{}
	s.wg.Add(1)
	return nil
}

func (s *connSet) remove(c *core) {
	s.mu.Lock()
	delete(s.m, c)
	s.mu.Unlock()
	s.wg.Done()
}

func (s *connSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
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
	cs := make([]*core, 0, len(s.m))
	for c := range s.m {
		cs = append(cs, c)
	}
	return cs
}
