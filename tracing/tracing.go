package tracing

import (
	"context"
	"strconv"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the tracer.
const ScopeName = "github.com/jetrpc/jetrpc/tracing"

// Attribute keys of the OpenTelemetry semantic conventions for JSON-RPC.
const (
	KeySystem       = attribute.Key("rpc.system")
	KeyMethod       = attribute.Key("rpc.method")
	KeyVersion      = attribute.Key("rpc.jsonrpc.version")
	KeyRequestID    = attribute.Key("rpc.jsonrpc.request_id")
	KeyErrorCode    = attribute.Key("rpc.jsonrpc.error_code")
	KeyErrorMessage = attribute.Key("rpc.jsonrpc.error_message")
	KeyPeerAddress  = attribute.Key("network.peer.address")
	KeyTransport    = attribute.Key("jetrpc.transport")
)

// Options configures Middleware. A nil *Options, and every zero field,
// means the default.
type Options struct {
	// TracerProvider makes the tracer (default otel.GetTracerProvider(),
	// read when the engine freezes its table).
	TracerProvider trace.TracerProvider
	// SampledParentsOnly starts a span only for the calls whose parent
	// is sampled (a traceparent with the sampled flag set), as a
	// parent-based sampler that samples no root span does
	// (sdktrace.ParentBased(sdktrace.NeverSample())), but without asking
	// the tracer: a call with no parent, or with a parent sampled out,
	// runs with no span of its own and costs nothing (no allocation). Its
	// handler's context still carries the remote parent, when there is
	// one, so the trace id and the sampled-out flag travel on. Set it when
	// your sampler is of that kind; the tracer's sampler still decides for
	// the sampled parents.
	SampledParentsOnly bool
}

// Middleware returns middleware that starts a server span for every call
// and notification of every method (see the package doc).
func Middleware(opts *Options) dispatch.Middleware {
	var tp trace.TracerProvider
	sampledOnly := false
	if opts != nil {
		tp, sampledOnly = opts.TracerProvider, opts.SampledParentsOnly
	}
	return func(method string, next dispatch.Handler) dispatch.Handler {
		p := tp
		if p == nil {
			p = otel.GetTracerProvider()
		}
		return &handler{next: next, name: method, tracer: p.Tracer(ScopeName), sampledOnly: sampledOnly,
			start: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)},
			attrs: []attribute.KeyValue{
				KeySystem.String("jsonrpc"),
				KeyMethod.String(method),
				KeyVersion.String("2.0"),
			},
		}
	}
}

// handler is one method's handler inside its span.
type handler struct {
	next   dispatch.Handler
	name   string
	tracer trace.Tracer
	start  []trace.SpanStartOption // the kind, built once
	attrs  []attribute.KeyValue    // the method's attributes, built once

	sampledOnly bool // Options.SampledParentsOnly
}

func (h *handler) ServeRPC(ctx context.Context, params, dst []byte) (out []byte, err error) {
	if h.sampledOnly {
		sc, ok := remoteParent(ctx)
		if ok {
			ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
		}
		if !sc.IsSampled() { // no span: the tracer would start none
			return h.next.ServeRPC(ctx, params, dst)
		}
		return h.serveTraced(ctx, params, dst)
	}
	return h.serveTraced(Extract(ctx), params, dst)
}

// serveTraced runs the handler in a span whose parent is in ctx.
func (h *handler) serveTraced(ctx context.Context, params, dst []byte) (out []byte, err error) {
	ctx, span := h.tracer.Start(ctx, h.name, h.start...)
	if span.IsRecording() { // attributes after Start: a span sampled out copies none
		span.SetAttributes(h.attrs...)
		annotate(ctx, span)
	}
	returned := false
	defer func() {
		if !returned { // the handler panicked: the engine answers -32603
			span.SetStatus(codes.Error, "handler panicked")
			span.SetAttributes(KeyErrorCode.Int(codeInternalError))
		}
		span.End()
	}()
	out, err = h.next.ServeRPC(ctx, params, dst)
	returned = true
	if err != nil && span.IsRecording() {
		fail(span, err)
	}
	return out, err
}

const codeInternalError = -32603

// annotate sets the attributes of the call itself on a recording span.
func annotate(ctx context.Context, span trace.Span) {
	if id := dispatch.RequestID(ctx); len(id) > 0 {
		if len(id) >= 2 && id[0] == '"' {
			id = id[1 : len(id)-1]
		}
		span.SetAttributes(KeyRequestID.String(string(id)))
	}
	if o := dispatch.OriginOf(ctx); o != nil {
		span.SetAttributes(KeyTransport.String(o.Transport))
		if o.Remote != nil {
			span.SetAttributes(KeyPeerAddress.String(o.Remote.String()))
		}
	}
}

// fail records the error response err becomes.
func fail(span trace.Span, err error) {
	code := dispatch.CodeOf(err)
	msg := err.Error()
	if re, ok := err.(*encode.Error); ok {
		msg = re.Message
	}
	span.SetAttributes(KeyErrorCode.Int(int(code)), KeyErrorMessage.String(msg))
	span.SetStatus(codes.Error, strconv.Itoa(int(code))+" "+msg)
}
