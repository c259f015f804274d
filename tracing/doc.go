// Package tracing traces a jetrpc engine's calls with OpenTelemetry
// (go.opentelemetry.io/otel): one server span per call or notification,
// with the OpenTelemetry semantic conventions for JSON-RPC.
//
// [Middleware] returns a dispatch.Middleware; install it with Engine.Use
// before the engine serves:
//
//	e.Use(tracing.Middleware(&tracing.Options{TracerProvider: tp}))
//
// Each span is named after the method, of kind server, and carries
// rpc.system ("jsonrpc"), rpc.method, rpc.jsonrpc.version ("2.0"),
// rpc.jsonrpc.request_id (the id, without the quotes of a string id; absent
// for a notification) and, when the handler fails, rpc.jsonrpc.error_code
// and rpc.jsonrpc.error_message with the span status Error. The handler's
// context carries the span, so its own spans are children of it.
//
// The parent comes from the W3C trace context of the request: the
// traceparent and tracestate HTTP headers (netserver attaches them to the
// call's context: see dispatch.Origin), else the "traceparent" and
// "tracestate" string members of the request's "_meta" object, which is how
// it travels over TCP, stdio and WebSocket:
//
//	{"jsonrpc":"2.0","method":"m","id":1,"_meta":{"traceparent":"00-...-...-01"}}
//
// Package client sends the same: set client.Options.TraceContext to
// [ClientTraceContext]. A call whose trace is sampled out costs the SDK's
// Start: two allocations (its non-recording span and the context carrying
// it), two more when a traceparent is parsed from _meta; no attribute is
// copied (see BenchmarkObserve in bench/). With a sampler that samples
// only the children of sampled parents, set Options.SampledParentsOnly: a
// call with no sampled parent then starts no span and allocates nothing
// (two allocations when a parent sampled out is passed on to its handler).
//
// This package is the only one of jetrpc that imports OpenTelemetry, so a
// program that does not import it links none of it.
package tracing
