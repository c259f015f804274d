package client

// NOTE: propagating the caller's trace context (Options.TraceContext). The
// client imports no tracing library: the option gives it the W3C values,
// which package tracing computes from an OpenTelemetry span. On a stream or
// WebSocket they go into the request's top-level "_meta" object, as a
// jetrpc server reads them (dispatch.Meta); over HTTP into the traceparent
// and tracestate headers of the POST.

import (
	"context"

	"github.com/jetrpc/jetrpc/encode"
)

// TraceContextFunc returns the W3C trace context (the traceparent and
// tracestate values) that a message sent under ctx carries; an empty
// traceparent sends none. See Options.TraceContext.
type TraceContextFunc func(ctx context.Context) (traceparent, tracestate string)

func (o *Options) traceContext() TraceContextFunc {
	if o == nil {
		return nil
	}
	return o.TraceContext
}

// appendMeta adds the "_meta" member with the trace context of ctx to the
// request or notification that ends b (a stream's message: its closing
// brace is the last byte).
func (c *Client) appendMeta(ctx context.Context, b []byte) []byte {
	tp, ts := c.trace(ctx)
	if tp == "" || len(b) == 0 || b[len(b)-1] != '}' {
		return b
	}
	b = append(b[:len(b)-1], `,"_meta":{"traceparent":`...)
	b = encode.AppendString(b, tp)
	if ts != "" {
		b = append(b, `,"tracestate":`...)
		b = encode.AppendString(b, ts)
	}
	return append(b, "}}"...)
}

// traceMessage adds the trace context of ctx to a stream's message that
// ends b, when the client propagates one.
func (c *Client) traceMessage(ctx context.Context, b []byte) []byte {
	if c.trace == nil || !c.t.stream() {
		return b
	}
	return c.appendMeta(ctx, b)
}

// appendTraceHeaders appends the trace-context header lines of ctx for an
// HTTP request to hdr.
func (c *Client) appendTraceHeaders(ctx context.Context, hdr []byte) []byte {
	if c.trace == nil {
		return hdr
	}
	if tp, ts := c.trace(ctx); tp != "" {
		hdr = append(append(append(hdr, "traceparent: "...), tp...), "\r\n"...)
		if ts != "" {
			hdr = append(append(append(hdr, "tracestate: "...), ts...), "\r\n"...)
		}
	}
	return hdr
}
