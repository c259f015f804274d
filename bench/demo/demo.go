// Package demo holds the demo methods of the jetrpc benchmark server: the
// JSON-RPC 2.0 specification's example methods plus test helpers, all raw
// handlers that read their params in place and append their results.
package demo

import (
	"context"
	"time"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// Register registers the demo methods on e: subtract, sum, update,
// notify_hello, notify_sum, get_data, echo, sleep, fail, panic and blob
// ([n]: a string of n "x" bytes, streamed: see dispatch.StreamResult), and
// that talk back to the caller through its connection's dispatch.Peer:
// subscribe ([n]: n notifications "subscription", then n), callback
// ([method, params]: calls method on the caller, returns its result) and
// demo_subscribe / demo_unsubscribe (go-ethereum's subscription convention:
// the id first, then n notifications "demo_subscription").
func Register(e *dispatch.Engine) error { return RegisterAs(e, Inline) }

// rawMethods are the demo methods as Register registers them: raw
// handlers, the cheap ones marked Inline.
func rawMethods() []dispatch.Method {
	return []dispatch.Method{
		{Name: "subtract", Handler: dispatch.HandlerFunc(subtract), Inline: true},
		{Name: "sum", Handler: dispatch.HandlerFunc(sum), Inline: true},
		{Name: "update", Handler: dispatch.HandlerFunc(null), Inline: true},
		{Name: "notify_hello", Handler: dispatch.HandlerFunc(null), Inline: true},
		{Name: "notify_sum", Handler: dispatch.HandlerFunc(null), Inline: true},
		{Name: "get_data", Handler: dispatch.HandlerFunc(getData), Inline: true},
		{Name: "echo", Handler: dispatch.HandlerFunc(echo), Inline: true},
		{Name: "sleep", Handler: dispatch.HandlerFunc(sleep)},
		{Name: "fail", Handler: dispatch.HandlerFunc(fail), Inline: true},
		{Name: "panic", Handler: dispatch.HandlerFunc(panicking), Inline: true},
		{Name: "subscribe", Handler: dispatch.HandlerFunc(subscribe)},
		{Name: "callback", Handler: dispatch.HandlerFunc(callback)},
		{Name: "demo_subscribe", Handler: dispatch.HandlerFunc(demoSubscribe)},
		{Name: "demo_unsubscribe", Handler: dispatch.HandlerFunc(demoUnsubscribe), Inline: true},
		{Name: "blob", Handler: dispatch.HandlerFunc(blob), Streams: true},
	}
}

var (
	errSubtract = dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
		[]byte(`"want [minuend, subtrahend] or {\"minuend\":a,\"subtrahend\":b}, both numbers"`))
	errSum   = dispatch.NewError(encode.CodeInvalidParams, "Invalid params", []byte(`"want an array of numbers"`))
	errRange = dispatch.NewError(encode.CodeInvalidParams, "Invalid params", []byte(`"result out of range"`))
	errSleep = dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
		[]byte(`"want [ms] or {\"ms\":ms}, a non-negative integer"`))
	errFail = dispatch.NewError(encode.CodeInvalidParams, "Invalid params",
		[]byte(`"want {\"code\":integer,\"message\":string[,\"data\":any]}"`))
)

// subtract: [a,b] or {"minuend":a,"subtrahend":b} -> a-b.
func subtract(_ context.Context, params, dst []byte) ([]byte, error) {
	var it decode.Iter
	if !it.Reset(params) {
		return dst, errSubtract
	}
	var a, b []byte
	n := 0
	for ; it.Next(); n++ {
		switch {
		case !it.IsObject() && n == 0, it.IsObject() && decode.KeyEquals(it.Key(), "minuend") && a == nil:
			a = it.Value()
		case !it.IsObject() && n == 1, it.IsObject() && decode.KeyEquals(it.Key(), "subtrahend") && b == nil:
			b = it.Value()
		default:
			return dst, errSubtract
		}
	}
	if a == nil || b == nil {
		return dst, errSubtract
	}
	var acc number
	if !acc.add(a, 1) || !acc.add(b, -1) {
		return dst, errSubtract
	}
	return acc.appendTo(dst)
}

// sum: [numbers...] -> their sum.
func sum(_ context.Context, params, dst []byte) ([]byte, error) {
	var it decode.Iter
	if !it.Reset(params) || it.IsObject() {
		return dst, errSum
	}
	var acc number
	for it.Next() {
		if !acc.add(it.Value(), 1) {
			return dst, errSum
		}
	}
	return acc.appendTo(dst)
}

func null(_ context.Context, _, dst []byte) ([]byte, error) { return dst, nil }

func getData(_ context.Context, _, dst []byte) ([]byte, error) {
	return append(dst, `["hello",5]`...), nil
}

// echo returns the params as received (null when absent).
func echo(_ context.Context, params, dst []byte) ([]byte, error) {
	return append(dst, params...), nil
}

// sleep: [ms] or {"ms":ms} -> waits, returns ms; a cancelled context ends it early with that error.
func sleep(ctx context.Context, params, dst []byte) ([]byte, error) {
	var it decode.Iter
	if !it.Reset(params) || !it.Next() {
		return dst, errSleep
	}
	if it.IsObject() && !decode.KeyEquals(it.Key(), "ms") {
		return dst, errSleep
	}
	raw := it.Value()
	ms, err := decode.ParseInt(raw)
	if err != nil || ms < 0 || it.Next() {
		return dst, errSleep
	}
	if ms == 0 { // nothing to wait for, whatever the context says
		return append(dst, raw...), nil
	}
	if err := ctx.Err(); err != nil { // decided before a timer can race it
		return dst, err
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return append(dst, raw...), nil
	case <-ctx.Done():
		return dst, ctx.Err()
	}
}

// fail: {"code":c,"message":m,"data":d} -> that error object.
func fail(_ context.Context, params, dst []byte) ([]byte, error) {
	var it decode.Iter
	if !it.Reset(params) || !it.IsObject() {
		return dst, errFail
	}
	var code, msg, data []byte
	for it.Next() {
		switch {
		case decode.KeyEquals(it.Key(), "code"):
			code = it.Value()
		case decode.KeyEquals(it.Key(), "message"):
			msg = it.Value()
		case decode.KeyEquals(it.Key(), "data"):
			data = it.Value()
		}
	}
	c, err := decode.ParseInt(code)
	if err != nil || c != int64(int32(c)) || len(msg) == 0 || msg[0] != '"' {
		return dst, errFail
	}
	text, err := decode.AppendUnquote(nil, msg)
	if err != nil {
		return dst, errFail
	}
	return dst, dispatch.NewError(encode.Code(c), string(text), data)
}

func panicking(context.Context, []byte, []byte) ([]byte, error) {
	panic("demo: panic method called")
}
