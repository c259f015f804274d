package client

import (
	"strconv"
	"sync"

	"github.com/jetrpc/jetrpc/internal/pending"
)

// NOTE: the pending table is internal/pending's, as dispatch.Peer's is; its
// NOTE says who completes an entry. A call takes an entry from callPool,
// gives it the next id and registers it in Client.calls before its request
// is written. The reader completes the entry it takes for a response
// (complete), the caller whose context ended abandons it (Client.wait), and
// Client.fail closes the table, which fails every entry left with the
// connection's error. An entry is reused, with its signal channel, once its
// caller is done with it.

// call is one pending call.
type call struct {
	pending.Call // Dst, Res, Err: where the result goes, the answer

	id    uint64
	ids   [1]uint64 // id, as the slice transport.send takes
	idLen uint8
	idBuf [20]byte
	buf   []byte // Call's result buffer, kept between uses
}

// maxKeptBuf caps the result buffer a pooled entry keeps.
const maxKeptBuf = 64 << 10

var callPool = sync.Pool{New: func() any { return new(call) }}

// getCall returns an entry with a fresh id.
func (c *Client) getCall() *call {
	p := callPool.Get().(*call)
	p.renew(c)
	return p
}

// renew gives p a fresh id, for another attempt.
func (p *call) renew(c *Client) {
	p.id = c.nextID.Add(1)
	p.ids[0] = p.id
	p.idLen = uint8(len(strconv.AppendUint(p.idBuf[:0], p.id, 10)))
}

func putCall(p *call) {
	p.Reset()
	if cap(p.buf) > maxKeptBuf {
		p.buf = nil
	}
	callPool.Put(p)
}

func (p *call) idBytes() []byte { return p.idBuf[:p.idLen] }

// register adds p to the pending table, unless the client is closed.
func (c *Client) register(p *call) error { return c.calls.Register(p.id, &p.Call) }

// settle abandons p if it is still pending, else waits for its completion:
// afterwards nobody else touches p.
func (c *Client) settle(p *call) { c.calls.Settle(p.id, &p.Call) }

// fail closes the client with err (the first error wins): new calls fail
// with it and every pending call completes with it.
func (c *Client) fail(err error) {
	if c.calls.Close(err) {
		close(c.done)
		c.setState(Closed)
	}
	c.cancel()
}

// closedErr returns the error new calls get, or nil while the client is
// open.
func (c *Client) closedErr() error { return c.calls.Err() }
