//go:build linux

package netserver

// NOTE: idle connections parked without a goroutine (Linux). A TCP or Unix
// socket connection that gave its buffers back (releaseIdle) ends its
// reader goroutine (errPark) and is handed to its Server's parker (park):
// its descriptor goes into an epoll instance of the parker's own,
// level-triggered and one-shot (EPOLLIN|EPOLLRDHUP|EPOLLONESHOT), and one
// goroutine per Server starts a new reader goroutine for each connection
// whose input (or end of input) arrives. The Go runtime's netpoller keeps
// its own registration of the descriptor: a descriptor can be in several
// epoll instances. The epoll instance is itself in the runtime's netpoller
// (an *os.File; epoll instances nest), so that the poller goroutine waits
// like any reader, holding no thread, and the runtime wakes it on the
// thread that found the event, which then runs the goroutines it starts.
//
//   - Waking: the poller (input), the sweeper (kick: a spell is over),
//     Shutdown (stop, abort: interrupt) and a failed write (drop) each claim
//     a parked connection under the parker's lock (claim); whoever claims
//     it starts its goroutine, which resumes exactly as one that waited in
//     a read: readLoop, arm, await.
//   - No lost wake-up: a connection parks under its c.mu after checking
//     that no waker came first (a kick, Shutdown, a write error), and the
//     wakers other than the poller hold c.mu, so either they find it parked
//     or it sees them; input that arrives while it parks is reported by the
//     registration itself, which is level-triggered. Nothing is buffered in
//     the process: a connection parks only without a frame reader.
//   - Stale events: each parking has a generation, carried by its event
//     with the descriptor; an event of an earlier parking (claimed by
//     another waker meanwhile) is ignored. A descriptor is only ever passed
//     to epoll_ctl inside RawConn.Control, so it is the connection's own.
//   - Lifetime: the poller goroutine and its epoll instance (a pollSet)
//     exist while connections are parked; the last one claimed retires the
//     set (closing its file ends its goroutine's wait), and the next park
//     starts a new one.

import (
	"net"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// parker is a Server's: the idle connections parked without a goroutine.
type parker struct {
	off bool // tests: wait on a goroutine instead, as on other systems
	// testHook, when set, sees each connection about to park.
	testHook func(c *conn)

	mu    sync.Mutex
	cur   *pollSet // nil: none runs
	n     int      // connections parked in cur
	total uint64   // parkings so far
}

// pollSet is an epoll instance and the goroutine that waits on it.
type pollSet struct {
	f     *os.File // the epoll instance, in the runtime's netpoller
	rc    syscall.RawConn
	ep    int        // f's descriptor
	gen   uint32     // of the last parking
	slots []parkSlot // by descriptor: the connections parked
}

type parkSlot struct {
	c   *conn
	gen uint32
}

// parkState is a connection's parking; under its Server's parker.mu.
type parkState struct {
	set    *pollSet // the instance its descriptor was last added to
	fd     int32
	parked bool
}

// parkEvents are the events a parked connection waits for.
const parkEvents = unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT

// park parks c and reports whether it did; when it did not, c must go on
// on a goroutine of its own.
func (p *parker) park(c *conn) bool {
	if p.off {
		return false
	}
	var rc syscall.RawConn
	var err error
	switch nc := c.nc.(type) {
	case *net.TCPConn:
		rc, err = nc.SyscallConn()
	case *net.UnixConn:
		rc, err = nc.SyscallConn()
	default: // TLS, or a wrapper that may buffer input
		return false
	}
	if err != nil {
		return false
	}
	if p.testHook != nil {
		p.testHook(c)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping.Load() || c.rd.kicked || c.werr != nil { // a waker came first
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.cur
	if s == nil {
		if s, err = newPollSet(); err != nil {
			return false
		}
		p.cur = s
		go s.run(p)
	}
	var aerr error
	if err = rc.Control(func(fd uintptr) { aerr = p.add(s, c, int(fd)) }); err == nil {
		err = aerr
	}
	if err != nil {
		if p.n == 0 {
			p.retire(s)
		}
		return false
	}
	return true
}

// add registers fd, c's descriptor, with s and parks c. p.mu is held.
func (p *parker) add(s *pollSet, c *conn, fd int) error {
	s.gen++
	ev := unix.EpollEvent{Events: parkEvents, Fd: int32(fd), Pad: int32(s.gen)}
	op := unix.EPOLL_CTL_ADD
	if c.pk.set == s { // added before: a one-shot registration is re-armed
		op = unix.EPOLL_CTL_MOD
	}
	err := unix.EpollCtl(s.ep, op, fd, &ev)
	switch {
	case err == unix.ENOENT && op == unix.EPOLL_CTL_MOD:
		err = unix.EpollCtl(s.ep, unix.EPOLL_CTL_ADD, fd, &ev)
	case err == unix.EEXIST && op == unix.EPOLL_CTL_ADD:
		err = unix.EpollCtl(s.ep, unix.EPOLL_CTL_MOD, fd, &ev)
	}
	if err != nil {
		return err
	}
	if fd >= len(s.slots) {
		s.slots = append(s.slots, make([]parkSlot, fd+1-len(s.slots)+len(s.slots)/4)...)
	}
	if old := s.slots[fd].c; old != nil && old != c {
		// The descriptor of the connection parked here was closed (drop)
		// and not yet claimed: it goes on, to end.
		p.claim(old)
		go old.serveTracked()
	}
	s.slots[fd] = parkSlot{c: c, gen: s.gen}
	c.pk = parkState{set: s, fd: int32(fd), parked: true}
	p.n++
	p.total++
	return nil
}

// claim takes parked c out of its set; the caller starts its goroutine.
// p.mu is held.
func (p *parker) claim(c *conn) {
	s := c.pk.set
	c.pk.parked = false
	s.slots[c.pk.fd] = parkSlot{}
	if p.n--; p.n == 0 {
		p.retire(s)
	}
}

// retire closes s, which ends its goroutine; p.mu is held. (Close waits
// only for an epoll_wait that does not block.)
func (p *parker) retire(s *pollSet) {
	if p.cur != s {
		return
	}
	p.cur = nil
	s.slots = nil // all empty; connections may still point to s
	s.f.Close()
}

// unpark claims c if it is parked and starts its goroutine (the sweeper's
// kick, Shutdown's interrupt and drop). c.mu is held.
func (c *conn) unpark() {
	p := &c.srv.parker
	p.mu.Lock()
	if !c.pk.parked {
		p.mu.Unlock()
		return
	}
	p.claim(c)
	p.mu.Unlock()
	go c.serveTracked()
}

// newPollSet opens an epoll instance, in the runtime's netpoller.
func newPollSet() (*pollSet, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if err = unix.SetNonblock(ep, true); err != nil {
		unix.Close(ep)
		return nil, err
	}
	f := os.NewFile(uintptr(ep), "epoll") // nonblocking: in the netpoller
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &pollSet{f: f, rc: rc, ep: ep}, nil
}

// run waits for the events of s's connections and resumes each on a new
// goroutine, until s is retired (its file closed).
func (s *pollSet) run(p *parker) {
	events := make([]unix.EpollEvent, 128)
	var woken []*conn
	var n int
	wait := func(fd uintptr) bool { // false: wait until the instance is readable
		n, _ = unix.EpollWait(int(fd), events, 0)
		return n > 0
	}
	for {
		if s.rc.Read(wait) != nil { // closed: retired
			return
		}
		p.mu.Lock()
		for _, ev := range events[:n] {
			fd := int(ev.Fd)
			if fd >= len(s.slots) {
				continue
			}
			if sl := s.slots[fd]; sl.c != nil && sl.gen == uint32(ev.Pad) {
				woken = append(woken, sl.c)
				p.claim(sl.c)
			}
		}
		p.mu.Unlock()
		for i, c := range woken {
			go c.serveTracked()
			woken[i] = nil
		}
		woken = woken[:0]
	}
}
