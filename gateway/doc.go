// Package gateway forwards JSON-RPC 2.0 calls to upstream servers without
// decoding them: a [Gateway] routes each call by its method name (exact
// names and prefixes) to a [Group] of upstreams, a client.Pool that
// balances, fails over, retries and hedges the methods its RetryPolicy
// declares idempotent and sends every other call exactly once.
//
// A call is parsed only to its envelope (method, id, params as raw bytes).
// The gateway sends it upstream under an id of its own (the pool's) and
// answers the client with the client's id, byte for byte, and the
// upstream's result as it came. An upstream's error object passes through
// as it came too, byte for byte (client.Pool.ForwardRaw keeps it). Notifications are forwarded and get no answer.
// Batches are split by route, sent as one sub-batch per group, and
// answered as one array; a member whose route failed gets its own error.
// A call no route allows is answered -32601.
//
// A Gateway is a dispatch.Forwarder: serve it with an Engine whose
// dispatch.Options.Forward it is, over every transport package netserver
// serves (see the example). Answers may be cached (Options.Cache and
// Options.CachePolicy, package gateway/cache). On stream connections a
// single call waits on no goroutine (ForwardAsync: the upstream's reader
// writes its answer to the client's connection) and cache hits, single or
// batched, are answered on the connection's reader (ForwardInline).
// docs/gateway.md lists the goroutine hand-offs that are left.
package gateway
