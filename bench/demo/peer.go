package demo

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// CodeNoPeer is the error code of subscribe and callback on a transport
// that cannot send to the client (plain HTTP POST).
const CodeNoPeer encode.Code = -32004

// MaxSubscribe is the most notifications one subscribe call sends.
const MaxSubscribe = 100_000

var (
	errSubscribe = dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
		[]byte(`"want [n] or {\"count\":n}, an integer from 0 to 100000"`))
	errCallback = dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
		[]byte(`"want [method, params] or {\"method\":m,\"params\":p}; params an array or object, optional"`))
	errNoPeer = dispatch.NewError(CodeNoPeer, "Transport cannot send to the client",
		[]byte(`"use TCP, stdio, WebSocket, or a POST with Accept: text/event-stream"`))
	errNoCalls = dispatch.NewError(CodeNoPeer, "Transport cannot send to the client",
		[]byte(`"callback needs a connection both ways: TCP, stdio or WebSocket"`))
)

// subscribe: [n] or {"count":n} -> sends n notifications "subscription"
// with params {"subscription":<this call's id>,"result":i} for i = 1..n to
// the caller, then returns n.
func subscribe(ctx context.Context, params, dst []byte) ([]byte, error) {
	n, ok := subscribeCount(params)
	if !ok {
		return dst, errSubscribe
	}
	peer := dispatch.PeerOf(ctx)
	if peer == nil {
		return dst, errNoPeer
	}
	id := dispatch.RequestID(ctx)
	if id == nil {
		id = []byte("null")
	}
	if err := notifyN(ctx, peer, "subscription", id, n); err != nil {
		return dst, err
	}
	return strconv.AppendInt(dst, n, 10), nil
}

// subscribeCount reads [n] or {"count":n}, n from 0 to MaxSubscribe.
func subscribeCount(params []byte) (int64, bool) {
	var it decode.Iter
	if !it.Reset(params) || !it.Next() || it.IsObject() && !decode.KeyEquals(it.Key(), "count") {
		return 0, false
	}
	n, err := decode.ParseInt(it.Value())
	if err != nil || n < 0 || n > MaxSubscribe || it.Next() {
		return 0, false
	}
	return n, true
}

// notifyN sends n notifications method {"subscription":id,"result":i},
// i = 1..n, to peer.
func notifyN(ctx context.Context, peer *dispatch.Peer, method string, id []byte, n int64) error {
	var b []byte
	for i := int64(1); i <= n; i++ {
		b = append(append(b[:0], `{"subscription":`...), id...)
		b = strconv.AppendInt(append(b, `,"result":`...), i, 10)
		if err := peer.NotifyRaw(ctx, method, append(b, '}')); err != nil {
			return err
		}
	}
	return nil
}

// callback: [method, params] or {"method":m,"params":p} -> calls method on
// the caller with params and returns its result (or its error).
func callback(ctx context.Context, params, dst []byte) ([]byte, error) {
	method, args, ok := callbackParams(params)
	if !ok {
		return dst, errCallback
	}
	peer := dispatch.PeerOf(ctx)
	if !peer.CanCall() {
		return dst, errNoCalls
	}
	return peer.CallRaw(ctx, dst, method, args)
}

func callbackParams(params []byte) (method string, args []byte, ok bool) {
	var it decode.Iter
	if !it.Reset(params) {
		return "", nil, false
	}
	var m []byte
	for n := 0; it.Next(); n++ {
		switch {
		case !it.IsObject() && n == 0, it.IsObject() && decode.KeyEquals(it.Key(), "method") && m == nil:
			m = it.Value()
		case !it.IsObject() && n == 1, it.IsObject() && decode.KeyEquals(it.Key(), "params") && args == nil:
			args = it.Value()
		default:
			return "", nil, false
		}
	}
	if len(m) == 0 || m[0] != '"' || len(args) > 0 && args[0] != '[' && args[0] != '{' {
		return "", nil, false
	}
	name, err := decode.AppendUnquote(nil, m)
	if err != nil || len(name) == 0 {
		return "", nil, false
	}
	return string(name), args, true
}

// subIDs numbers demo_subscribe's subscriptions.
var subIDs atomic.Uint64

// demoSubscribe: [n] (or {"count":n}) -> answers a subscription id ("0x1", "0x2", ...) at
// once, then sends n notifications "demo_subscription" with params
// {"subscription":id,"result":i}, i = 1..n: go-ethereum's subscription
// convention (its client's Subscribe(ctx, "demo", ch, n) receives 1..n).
func demoSubscribe(ctx context.Context, params, dst []byte) ([]byte, error) {
	n, ok := subscribeCount(params)
	if !ok {
		return dst, errSubscribe
	}
	peer := dispatch.PeerOf(ctx)
	var idb [24]byte
	id := strconv.AppendUint(append(idb[:0], `"0x`...), subIDs.Add(1), 16)
	id = append(id, '"')
	if err := peer.Reply(ctx, id); err != nil {
		if errors.Is(err, dispatch.ErrNoPeer) {
			return dst, errNoPeer
		}
		return dst, err
	}
	return dst, notifyN(ctx, peer, "demo_subscription", id, n) // answered already
}

// demoUnsubscribe: [id] -> true (the demo's subscriptions end by themselves).
func demoUnsubscribe(_ context.Context, _, dst []byte) ([]byte, error) {
	return append(dst, "true"...), nil
}
