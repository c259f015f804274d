package dispatch

// NOTE: a Peer is the client end of one connection, as its handlers see it.
// The transport creates it with its conn (engineconn.NewConn, with a
// Sender that frames and queues one message); the conn's context carries
// it (conn.go), and ClosePeer closes it when reading ends. Calls to the
// peer are kept in a pending table keyed by id, the client's own (internal/pending): the
// response to one comes back in through the engine, which hands Result and
// Error responses to the Peer of its context (deliver) instead of dropping
// them. Whoever removes an entry from the table completes it: deliver, the
// caller whose context ended, or Close.

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/engineconn"
	"github.com/jetrpc/jetrpc/internal/pending"
	"github.com/jetrpc/jetrpc/internal/pool"
	"github.com/jetrpc/jetrpc/internal/rpcmsg"
)

// Errors of a Peer.
var (
	// ErrNoPeer: the transport cannot send to the client on its own (plain
	// HTTP POST, Process without a server).
	ErrNoPeer = errors.New("dispatch: no peer: this transport cannot send to the client")
	// ErrOneWay: the peer takes notifications only (an SSE stream).
	ErrOneWay = errors.New("dispatch: the peer takes notifications only (SSE): it cannot answer calls")
	// ErrPeerClosed: the connection to the peer ended; calls pending then
	// fail with it.
	ErrPeerClosed = errors.New("dispatch: connection to the peer closed")
	// ErrOnReader: Call from a handler running on the connection's reading
	// goroutine (an Inline method) would wait for a response that goroutine
	// must read. Register the method without Inline.
	ErrOnReader = errors.New("dispatch: Peer.Call from a handler on the connection's reading goroutine (an Inline method) would deadlock")
	// ErrPeerParams: params that are neither absent nor an array or object.
	ErrPeerParams = errors.New("dispatch: peer params must be a JSON array or object")
	// ErrNoReply: Reply outside a call (a notification, or not a handler's
	// context), in a batch member (its response belongs in the batch's
	// array), or a second time.
	ErrNoReply = errors.New("dispatch: Reply needs the context of a call outside a batch, once")
)

// Peer is the other end of a connection, which a handler can notify or call
// while the connection is open. Get it with [PeerOf]. Its methods are safe
// for concurrent use and may be called after the handler returned (a
// subscription that keeps notifying), until the connection closes. Methods
// on a nil *Peer return ErrNoPeer.
type Peer struct {
	send   engineconn.Sender
	oneWay bool
	nextID atomic.Uint64
	calls  pending.Table // closed with ErrPeerClosed
	e      *Engine       // whose observer counts the messages sent (8 bytes where the Observer took 16)
}

type peerKey struct{}
type readerKey struct{}

// PeerOf returns the peer of the connection the handler's call came on, or
// nil when the transport has none (plain HTTP POST, Process).
func PeerOf(ctx context.Context) *Peer {
	p, _ := ctx.Value(peerKey{}).(*Peer)
	return p
}

// CanCall reports whether Call can reach the peer (a connection that is
// open both ways).
func (p *Peer) CanCall() bool { return p != nil && !p.oneWay }

// NotifyRaw sends a notification with params as raw JSON (an array, an
// object, or empty to leave params out).
func (p *Peer) NotifyRaw(ctx context.Context, method string, params []byte) error {
	if p == nil {
		return ErrNoPeer
	}
	if err := rpcmsg.CheckParams(params, ErrPeerParams); err != nil {
		return err
	}
	b := pool.GetBuffer()
	b.B = encode.AppendNotification(b.B, method, params)
	err := p.send.Send(ctx, b.B)
	pool.PutBuffer(b)
	p.observe(EventPeerNotify, err)
	return err
}

// Notify sends a notification with params encoded as encoding/json would
// (nil leaves params out); see client.Client.Call for the codecs and their
// sonic fallback.
func (p *Peer) Notify(ctx context.Context, method string, params any) error {
	raw, err := rpcmsg.MarshalParams(params, ErrPeerParams)
	if err != nil {
		return err
	}
	return p.NotifyRaw(ctx, method, raw)
}

// Call calls method on the peer with params encoded as for Notify and
// decodes the result into result (a non-nil pointer, or nil to discard it)
// with encoding/json's semantics, by the decoder compiled once for its type
// (sonic for a type that decoder does not support, as in client.Client.Call).
// An error response is returned as an *encode.Error; a result that does not fit is
// a decoding error.
func (p *Peer) Call(ctx context.Context, method string, params, result any) error {
	raw, err := rpcmsg.MarshalParams(params, ErrPeerParams)
	if err != nil {
		return err
	}
	res, err := p.CallRaw(ctx, nil, method, raw)
	if err == nil {
		err = rpcmsg.DecodeResult(res, result)
	}
	return err
}

// CallRaw calls method with raw params and appends the raw result to dst.
// It waits for the response until ctx ends (then the call is forgotten and
// ctx.Err() returned) or the connection closes (ErrPeerClosed). An error
// response is returned as an *encode.Error.
func (p *Peer) CallRaw(ctx context.Context, dst []byte, method string, params []byte) ([]byte, error) {
	switch {
	case p == nil:
		return dst, ErrNoPeer
	case p.oneWay:
		return dst, ErrOneWay
	}
	if h, ok := ctx.Value(callKey).(*ctxCell); ok {
		if rc := h.enter(); rc != nil {
			if md := rc.md; md != nil && !md.cost.never.Load() {
				md.cost.never.Store(true) // never run it on a reading goroutine again
			}
			rc.leave()
		}
	}
	if ctx.Value(readerKey{}) != nil {
		return dst, ErrOnReader
	}
	if err := rpcmsg.CheckParams(params, ErrPeerParams); err != nil {
		return dst, err
	}
	c := peerCalls.Get().(*pending.Call)
	c.Dst = dst
	id := p.nextID.Add(1)
	err := p.calls.Register(id, c)
	if err == nil {
		err = p.sendCall(ctx, id, method, params)
		if err != nil {
			p.calls.Settle(id, c)
		}
	}
	if err == nil {
		err = p.wait(ctx, id, c)
	}
	res := c.Res
	c.Reset()
	peerCalls.Put(c)
	if err != nil {
		return dst, err
	}
	return res, nil
}

// Reply sends the response to the call being served (the handler's ctx)
// now, with result as its raw JSON (empty means null), instead of when the
// handler returns; what the handler then returns is not sent. Messages the
// handler sends afterwards follow the response on the wire: a subscription
// answers its id with Reply and then notifies (go-ethereum's eth_subscribe
// convention, whose clients drop notifications that come before the id).
// It fails with ErrNoReply for a notification, a batch member or a second
// Reply, and with ErrNoPeer where there is no peer (plain HTTP).
func (p *Peer) Reply(ctx context.Context, result []byte) error {
	if p == nil {
		return ErrNoPeer
	}
	h, _ := ctx.Value(callKey).(*ctxCell)
	var rc *reqCtx
	if h != nil {
		rc = h.enter()
	}
	if rc == nil {
		return ErrNoReply // also once the call ended
	}
	if rc.idp == nil || rc.inBatch || !rc.replied.CompareAndSwap(false, true) {
		rc.leave()
		return ErrNoReply
	}
	b := pool.GetBuffer()
	b.B = encode.AppendResult(b.B, rc.id(), result)
	rc.leave() // not held while sending: the call may end meanwhile
	err := p.send.Send(ctx, b.B)
	pool.PutBuffer(b)
	if err != nil {
		if rc := h.enter(); rc != nil { // not sent: the handler's answer goes
			rc.replied.Store(false)
			rc.leave()
		}
	}
	p.observe(EventPeerReply, err)
	return err
}

// peerCalls holds the entries of calls to peers between uses.
var peerCalls = sync.Pool{New: func() any { return new(pending.Call) }}

func (p *Peer) sendCall(ctx context.Context, id uint64, method string, params []byte) error {
	var idb [20]byte
	b := pool.GetBuffer()
	b.B = encode.AppendRequest(b.B, strconv.AppendUint(idb[:0], id, 10), method, params)
	err := p.send.Send(ctx, b.B)
	pool.PutBuffer(b)
	p.observe(EventPeerCall, err)
	return err
}

// wait waits for the answer to the call c of id and returns its error, or
// ctx.Err() when ctx ended first (unless the answer came meanwhile).
func (p *Peer) wait(ctx context.Context, id uint64, c *pending.Call) error {
	if err := p.calls.Wait(ctx, id, c); err != nil {
		return err
	}
	return c.Err
}

// deliver completes the call a Result or Error response answers and
// reports whether there was one. m is valid only during the call.
func (p *Peer) deliver(m *decode.Message) bool {
	id, ok := rpcmsg.ParseID(m.ID)
	if !ok {
		return false
	}
	c := p.calls.Take(id)
	if c == nil {
		return false
	}
	if m.Kind == decode.Result {
		c.Resolve(m.Result)
	} else {
		c.Fail(rpcmsg.ParseError(m.Error))
	}
	return true
}

// Close ends the peer: calls pending fail with ErrPeerClosed, and so do
// later calls. Sending notifications is up to the transport's send.
func (p *Peer) Close() {
	if p != nil {
		p.calls.Close(ErrPeerClosed)
	}
}

// deliverToPeer hands a response to the peer of ctx; false when none
// waited for it.
func deliverToPeer(ctx context.Context, m *decode.Message) bool {
	p := PeerOf(ctx)
	return p != nil && p.deliver(m)
}
