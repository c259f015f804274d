package tracing

import (
	"context"
	"encoding/hex"

	"github.com/jetrpc/jetrpc/decode"
	"github.com/jetrpc/jetrpc/dispatch"
	"go.opentelemetry.io/otel/trace"
)

// Extract returns ctx carrying the remote parent span of the request being
// served, taken from the W3C trace context: the traceparent and tracestate
// HTTP headers of its Origin, else the "traceparent" and "tracestate"
// members of its "_meta". Without one (or with a malformed traceparent) it
// returns ctx unchanged. A handler needs it only to start spans of its own
// outside Middleware.
func Extract(ctx context.Context) context.Context {
	if sc, ok := remoteParent(ctx); ok {
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return ctx
}

// remoteParent returns the remote parent span context of the request
// being served (see Extract), and false when it has none. It allocates
// only for a tracestate.
func remoteParent(ctx context.Context) (trace.SpanContext, bool) {
	var tp, ts []byte
	if o := dispatch.OriginOf(ctx); o != nil && len(o.TraceParent) > 0 {
		tp, ts = o.TraceParent, o.TraceState
	} else if meta := dispatch.Meta(ctx); len(meta) > 0 {
		tp, ts = fromMeta(meta)
	}
	if len(tp) == 0 {
		return trace.SpanContext{}, false
	}
	sc, ok := ParseTraceParent(tp)
	if !ok {
		return trace.SpanContext{}, false
	}
	if len(ts) > 0 {
		if state, err := trace.ParseTraceState(string(ts)); err == nil {
			sc = sc.WithTraceState(state)
		}
	}
	return sc, true
}

// fromMeta returns the traceparent and tracestate strings of a _meta
// object (raw, without the quotes; a string with escapes is skipped).
func fromMeta(meta []byte) (tp, ts []byte) {
	var it decode.Iter
	if !it.Reset(meta) || !it.IsObject() {
		return nil, nil
	}
	for it.Next() {
		switch k := it.Key(); {
		case decode.KeyEquals(k, "traceparent"):
			tp = plainString(it.Value())
		case decode.KeyEquals(k, "tracestate"):
			ts = plainString(it.Value())
		}
	}
	return tp, ts
}

// plainString returns the contents of a JSON string without escapes, or nil.
func plainString(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	s := v[1 : len(v)-1]
	for _, c := range s {
		if c == '\\' {
			return nil
		}
	}
	return s
}

// ParseTraceParent parses a W3C traceparent value
// ("00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>") into a remote
// span context. A later version may add fields after the flags; version
// ff, all-zero ids and upper-case hex are invalid.
func ParseTraceParent(v []byte) (trace.SpanContext, bool) {
	const n = 55 // 2+1+32+1+16+1+2
	if len(v) < n || v[2] != '-' || v[35] != '-' || v[52] != '-' || !lowerHex(v[:n]) {
		return trace.SpanContext{}, false
	}
	var ver [1]byte
	if _, err := hex.Decode(ver[:], v[0:2]); err != nil || ver[0] == 0xff ||
		ver[0] == 0 && len(v) != n || ver[0] != 0 && len(v) > n && v[n] != '-' {
		return trace.SpanContext{}, false
	}
	var cfg trace.SpanContextConfig
	var flags [1]byte
	if _, err := hex.Decode(cfg.TraceID[:], v[3:35]); err != nil {
		return trace.SpanContext{}, false
	}
	if _, err := hex.Decode(cfg.SpanID[:], v[36:52]); err != nil {
		return trace.SpanContext{}, false
	}
	if _, err := hex.Decode(flags[:], v[53:55]); err != nil {
		return trace.SpanContext{}, false
	}
	cfg.TraceFlags = trace.TraceFlags(flags[0]) & trace.FlagsSampled
	cfg.Remote = true
	sc := trace.NewSpanContext(cfg)
	return sc, sc.IsValid()
}

// lowerHex reports whether the traceparent's fields hold lower-case hex
// digits only (the dashes at 2, 35 and 52 aside).
func lowerHex(v []byte) bool {
	for i, c := range v {
		if i == 2 || i == 35 || i == 52 {
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// AppendTraceParent appends the W3C traceparent value of sc to dst
// ("00-<trace id>-<span id>-<flags>"), for a client that propagates it.
func AppendTraceParent(dst []byte, sc trace.SpanContext) []byte {
	tid, sid := sc.TraceID(), sc.SpanID()
	dst = append(dst, "00-"...)
	dst = hex.AppendEncode(dst, tid[:])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, sid[:])
	dst = append(dst, '-')
	return hex.AppendEncode(dst, []byte{byte(sc.TraceFlags() & trace.FlagsSampled)})
}

// ClientTraceContext returns the W3C trace context of the span in ctx, for
// a client to send with a call made under ctx (client.Options.TraceContext):
// the traceparent value, empty when ctx has no valid span context, and the
// tracestate.
func ClientTraceContext(ctx context.Context) (traceparent, tracestate string) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return "", ""
	}
	var buf [55]byte
	return string(AppendTraceParent(buf[:0], sc)), sc.TraceState().String()
}
