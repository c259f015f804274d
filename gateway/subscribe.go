package gateway

// NOTE: subscriptions (go-ethereum's NS_subscribe / NS_unsubscribe and
// the NS_subscription notifications). A call of a method ending in
// "_subscribe", from a connection that has a peer (a stream or a
// WebSocket), is pinned: it goes to one upstream of its group that has a
// Relay (a stream or WebSocket upstream), and the subscription id it
// answers is recorded in that upstream's Relay with the client's peer. The
// Relay, the upstream client's Handler, hands each notification naming a
// recorded id to that peer, in the order they came. NS_unsubscribe goes to
// the upstream that holds the id. When the client's connection ends, its
// subscriptions are dropped and unsubscribed upstream; when the upstream's
// connection is lost (Relay.State), each of its subscriptions ends with a
// last notification carrying an error instead of a result:
//
//	{"jsonrpc":"2.0","method":"NS_subscription","params":{"subscription":ID,
//	 "error":{"code":-32000,"message":"Upstream gone","data":URL}}}
//
// and the client's connection stays up.

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/client"
	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

// Relay carries one upstream's notifications to the client connections
// that subscribed through it. Make one per stream or WebSocket upstream,
// give it to that upstream's client as client.Options.Handler and its
// State method as client.Reconnect.OnState, and list it in Group.Relays.
type Relay struct {
	name string // the upstream, in the error that ends its subscriptions

	p decode.Parser // Process's: one message at a time

	mu          sync.Mutex
	subs        map[string]*subscription // by the subscription id's raw JSON
	subscribing int                      // subscribe calls in flight
	early       [][]byte                 // notifications that came before their subscribe call's answer was recorded
}

// maxEarly bounds the notifications a Relay keeps for subscriptions whose
// subscribe call has not returned yet.
const maxEarly = 1024

var _ client.Handler = (*Relay)(nil)

// subscription is one client's subscription on one upstream.
type subscription struct {
	id     []byte // raw JSON
	notify string // the notifications' method (NS_subscription)
	peer   *dispatch.Peer
	ctx    context.Context // the client connection's
	stop   func() bool     // context.AfterFunc's
	ended  atomic.Bool
	mu     sync.Mutex // held while a notification is sent
}

// NewRelay returns a Relay for the upstream name (its URL, for errors).
func NewRelay(name string) *Relay { return &Relay{name: name, subs: map[string]*subscription{}} }

// Process hands a notification of a subscription to its client
// (client.Handler); anything else the upstream sends is dropped, and a call
// answered -32601.
func (r *Relay) Process(dst, msg []byte) []byte {
	m, err := r.p.Parse(msg)
	if err != nil {
		return dst
	}
	switch m.Kind {
	case decode.Call:
		return encode.AppendStdError(dst, m.ID, encode.CodeMethodNotFound)
	case decode.Notification:
	default:
		return dst
	}
	id := subscriptionID(m.Params)
	r.mu.Lock()
	s := r.subs[string(id)]
	if s == nil && r.subscribing > 0 && len(r.early) < maxEarly {
		// Its subscribe call's answer came just before; add sends it.
		r.early = append(r.early, bytes.Clone(msg))
	}
	r.mu.Unlock()
	if s != nil {
		s.deliver(bytesconv.B2S(m.Method), m.Params)
	}
	return dst
}

// deliver sends one notification to s's client, in order: the upstream
// client's Handler runs one message at a time, and s.mu keeps add's early
// ones first.
func (s *subscription) deliver(method string, params []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended.Load() {
		_ = s.peer.NotifyRaw(s.ctx, method, params)
	}
}

// State ends every subscription of the upstream when its connection is
// lost (client.Reconnect.OnState).
func (r *Relay) State(st client.State) {
	if st == client.Connected {
		return
	}
	r.mu.Lock()
	subs := make([]*subscription, 0, len(r.subs))
	for k, s := range r.subs {
		subs = append(subs, s)
		delete(r.subs, k)
	}
	r.mu.Unlock()
	if len(subs) == 0 {
		return
	}
	go func() { // OnState must not block
		for _, s := range subs {
			s.end(r.name)
		}
	}()
}

// end sends s's client the notification that ends it with an error.
func (s *subscription) end(upstream string) {
	s.mu.Lock() // after a notification being sent
	defer s.mu.Unlock()
	if s.ended.Swap(true) {
		return
	}
	s.stop()
	var b []byte
	b = append(b, `{"subscription":`...)
	b = append(b, s.id...)
	b = append(b, `,"error":{"code":`...)
	b = encode.AppendInt(b, int64(encode.CodeServerError))
	b = append(b, `,"message":"Upstream gone","data":`...)
	b = encode.AppendString(b, upstream)
	b = append(b, "}}"...)
	_ = s.peer.NotifyRaw(s.ctx, s.notify, b)
}

// begin tells r a subscribe call is in flight: notifications of ids it
// does not know yet are kept for add. done is called after add, or when
// the call failed.
func (r *Relay) begin() (done func()) {
	r.mu.Lock()
	r.subscribing++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		if r.subscribing--; r.subscribing == 0 {
			clear(r.early)
			r.early = r.early[:0]
		}
		r.mu.Unlock()
	}
}

// add records a subscription, sends its client answer (the subscribe
// call's response) and then the notifications that came before; when the
// client's connection ends, it is dropped and unsubscribed upstream with
// unsub.
func (r *Relay) add(s *subscription, answer []byte, unsub func(id []byte)) error {
	s.stop = context.AfterFunc(s.ctx, func() {
		if r.remove(s.id) != nil {
			unsub(s.id)
		}
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	r.mu.Lock()
	r.subs[string(s.id)] = s
	var early [][]byte
	keep := r.early[:0]
	for _, msg := range r.early {
		var p decode.Parser
		if m, err := p.Parse(msg); err == nil && bytes.Equal(subscriptionID(m.Params), s.id) {
			early = append(early, msg)
		} else {
			keep = append(keep, msg)
		}
	}
	clear(r.early[len(keep):])
	r.early = keep
	r.mu.Unlock()
	if err := s.peer.Send(s.ctx, answer); err != nil {
		return err
	}
	for _, msg := range early {
		var p decode.Parser
		if m, err := p.Parse(msg); err == nil {
			_ = s.peer.NotifyRaw(s.ctx, string(m.Method), m.Params)
		}
	}
	return nil
}

// remove drops the subscription id and returns it (nil: none).
func (r *Relay) remove(id []byte) *subscription {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.subs[string(id)]
	if s != nil {
		delete(r.subs, string(id))
	}
	return s
}

// has reports whether the subscription id is the upstream's.
func (r *Relay) has(id []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.subs[string(id)] != nil
}

// subscriptionID returns the raw "subscription" member of a
// notification's params (nil: none).
func subscriptionID(params []byte) []byte {
	var it decode.Iter
	if !it.Reset(params) || !it.IsObject() {
		return nil
	}
	for it.Next() {
		if decode.KeyEquals(it.Key(), "subscription") {
			return it.Value()
		}
	}
	return nil
}

// firstParam returns the first element of an array of params (nil: none).
func firstParam(params []byte) []byte {
	var it decode.Iter
	if !it.Reset(params) || it.IsObject() || !it.Next() {
		return nil
	}
	return it.Value()
}

var (
	subscribeSuffix   = []byte("_subscribe")
	unsubscribeSuffix = []byte("_unsubscribe")
)

// subscribing reports whether m, a call on route r, is one that pinned
// would take alone: a subscription method, from a client with a peer, on
// a group with Relays.
func subscribing(ctx context.Context, m *decode.Message, r *route) bool {
	return len(r.group.Relays) > 0 && (bytes.HasSuffix(m.Method, subscribeSuffix) || bytes.HasSuffix(m.Method, unsubscribeSuffix)) &&
		dispatch.PeerOf(ctx) != nil
}

// pinned answers a call of a subscription method from a client with a
// peer; ok is false for any other call, which is forwarded as usual.
func (g *Gateway) pinned(ctx context.Context, dst []byte, m *decode.Message, r *route) ([]byte, bool) {
	sub := bytes.HasSuffix(m.Method, subscribeSuffix)
	if !sub && !bytes.HasSuffix(m.Method, unsubscribeSuffix) {
		return dst, false
	}
	peer := dispatch.PeerOf(ctx)
	if peer == nil {
		return dst, false
	}
	if !sub {
		return g.unsubscribe(ctx, dst, m, r), true
	}
	i := g.pick(r.group)
	if i < 0 { // no stream upstream: forwarded as any call
		return dst, false
	}
	relay := r.group.Relays[i]
	done := relay.begin()
	defer done()
	start := len(dst)
	dst = encode.AppendResultStart(dst, m.ID)
	head := len(dst)
	out, err := g.callOn(ctx, r, i, dst, m)
	if err != nil {
		return appendFailure(dst[:start], m.ID, out[head:], err, r.timeout), true
	}
	ns := m.Method[:len(m.Method)-len(subscribeSuffix)]
	s := &subscription{id: bytes.Clone(out[head:]), notify: string(ns) + "_subscription", peer: peer, ctx: ctx}
	method := string(ns) + "_unsubscribe"
	unsub := func(id []byte) {
		params := append(append([]byte{'['}, id...), ']')
		uctx, cancel := context.WithTimeout(context.Background(), or(r.timeout, defaultUnsubscribe))
		defer cancel()
		_, _ = r.group.Pool.CallRawOn(uctx, i, nil, method, params)
	}
	// The answer goes now, through the peer, so that the notifications
	// follow it on the wire; nothing more is appended.
	if err := relay.add(s, encode.AppendResultEnd(out)[start:], unsub); err != nil {
		relay.remove(s.id)
		s.stop()
		unsub(s.id)
	}
	return out[:start], true
}

// unsubscribe sends NS_unsubscribe to the upstream that holds the id.
func (g *Gateway) unsubscribe(ctx context.Context, dst []byte, m *decode.Message, r *route) []byte {
	id := firstParam(m.Params)
	for i, relay := range r.group.Relays {
		if relay == nil || id == nil || !relay.has(id) {
			continue
		}
		start := len(dst)
		dst = encode.AppendResultStart(dst, m.ID)
		head := len(dst)
		out, err := g.callOn(ctx, r, i, dst, m)
		if err != nil {
			return appendFailure(dst[:start], m.ID, out[head:], err, r.timeout)
		}
		if s := relay.remove(id); s != nil {
			s.ended.Store(true)
			s.stop()
		}
		return encode.AppendResultEnd(out)
	}
	return encode.AppendResult(dst, m.ID, []byte("false")) // no such subscription, as go-ethereum answers
}

// callOn makes a call pinned to upstream i of r's group.
func (g *Gateway) callOn(ctx context.Context, r *route, i int, dst []byte, m *decode.Message) ([]byte, error) {
	if r.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	r.calls.Add(1)
	out, err := r.group.Pool.ForwardRawOn(ctx, i, dst, string(m.Method), m.Params)
	if err != nil {
		countError(r, err)
	}
	return out, err
}

// pick returns the upstream of a new subscription: the next usable one
// with a Relay, round robin; -1 when none is.
func (g *Gateway) pick(gr *Group) int {
	n := len(gr.Relays)
	start := int(g.next.Add(1))
	for k := range n {
		i := (start + k) % n
		if gr.Relays[i] != nil && gr.Pool.Usable(i) {
			return i
		}
	}
	return -1
}
