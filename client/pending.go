package client

import (
	"strconv"
	"sync"
)

// NOTE: the pending table. A call takes an entry from callPool, gives it the
// next id and registers it in Client.calls before its request is written.
// Whoever removes an entry from the table owns its completion: the reader
// (take) sets res or err and signals ch; a caller whose context ended
// (abandon) returns ctx.Err(); Client.fail moves every entry out with the
// connection's error. A caller that loses that race waits on ch, which is
// then already (or about to be) signalled. ch has room for one signal and
// gets exactly one per registration, so an entry can be reused with the same
// channel.

// call is one pending call.
type call struct {
	id    uint64
	ids   [1]uint64 // id, as the slice transport.send takes
	idLen uint8
	idBuf [20]byte
	ch    chan struct{} // one signal: res or err is set

	dst []byte // where the result is appended
	res []byte // dst with the result appended
	err error
	buf []byte // Call's result buffer, kept between uses
}

// maxKeptBuf caps the result buffer a pooled entry keeps.
const maxKeptBuf = 64 << 10

var callPool = sync.Pool{New: func() any { return &call{ch: make(chan struct{}, 1)} }}

// getCall returns an entry with a fresh id.
func (c *Client) getCall() *call {
	p := callPool.Get().(*call)
	p.id = c.nextID.Add(1)
	p.ids[0] = p.id
	p.idLen = uint8(len(strconv.AppendUint(p.idBuf[:0], p.id, 10)))
	return p
}

func putCall(p *call) {
	p.dst, p.res, p.err = nil, nil, nil
	if cap(p.buf) > maxKeptBuf {
		p.buf = nil
	}
	callPool.Put(p)
}

func (p *call) idBytes() []byte { return p.idBuf[:p.idLen] }

// register adds p to the pending table, unless the client is closed.
func (c *Client) register(p *call) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	c.calls[p.id] = p
	return nil
}

// take removes and returns the entry of id, or nil.
func (c *Client) take(id uint64) *call {
	c.mu.Lock()
	p := c.calls[id]
	if p != nil {
		delete(c.calls, id)
	}
	c.mu.Unlock()
	return p
}

// abandon removes p from the pending table and reports whether it was
// still there. When it was not, its completion is under way: wait on p.ch.
func (c *Client) abandon(p *call) bool {
	c.mu.Lock()
	q := c.calls[p.id]
	if q == p {
		delete(c.calls, p.id)
	}
	c.mu.Unlock()
	return q == p
}

// settle abandons p if it is still pending, else waits for its completion:
// afterwards nobody else touches p.
func (c *Client) settle(p *call) {
	if !c.abandon(p) {
		<-p.ch
	}
}

// fail closes the client with err (the first error wins): new calls fail
// with it and every pending call completes with it.
func (c *Client) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
	err = c.err
	var ps []*call
	for id, p := range c.calls {
		ps = append(ps, p)
		delete(c.calls, id)
	}
	c.mu.Unlock()
	c.cancel()
	for _, p := range ps {
		p.err = err
		p.ch <- struct{}{}
	}
}

// closedErr returns the error new calls get, or nil while the client is
// open.
func (c *Client) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
