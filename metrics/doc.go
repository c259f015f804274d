// Package metrics exposes what a jetrpc engine and its servers do as
// Prometheus metrics, with github.com/prometheus/client_golang.
//
// [New] returns a [Metrics], which is a dispatch.Observer, a
// netserver.Observer and a prometheus.Collector: register it in your own
// registry (New does when given one) and set it as the observer of the
// engine and of the servers:
//
//	reg := prometheus.NewRegistry()
//	m, err := metrics.New(reg, nil)
//	e := dispatch.New(&dispatch.Options{Observer: m})
//	srv := netserver.New(e, &netserver.Options{Observer: m})
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// A call costs two adds to counters kept per CPU, made by the engine
// itself (dispatch.CountingObserver; one atomic add more when it fails),
// and a message one more per-CPU add of three counters: CPUs serving the
// same method never pass a shared counter between their caches. A timed
// call goes through Begin and End, adds to the latency histogram (per CPU
// too) and costs the engine's two reads of the monotonic clock: every
// call of a method until it has had 1024, then one
// call in Options.LatencySample (default 8), chosen at random. The latency
// histogram's count is exact all the same (every call is counted, so its
// rate is the request rate); its buckets and sum are the timed calls'
// estimate, scaled to that count. Options.LatencySample 1 times every
// call. jetrpc_calls_total and jetrpc_calls_in_flight are always exact. The
// counters of each method are resolved when the engine freezes its method
// table, and Process allocates nothing more. Every unknown method
// shares the method label "(unknown)", so a client cannot create series.
// Error codes other than the engine's (and Options.Codes) are counted as
// code "other" for the same reason. Values are read, and the allocations
// made, when Prometheus scrapes.
//
// # Metrics
//
//	| metric | type | labels | what |
//	|---|---|---|---|
//	| `jetrpc_calls_total` | counter | `method`, `code` | calls and notifications handled; `code` is `ok`, an engine error code (`-32700`, `-32600`..`-32603`, `-32000`..`-32003`), one of Options.Codes, or `other` |
//	| `jetrpc_call_duration_seconds` | histogram | `method` | how long the handlers ran (buckets: Options.LatencyBuckets, 10 µs to 10 s); the count exact, the buckets and sum from the timed calls (Options.LatencySample) |
//	| `jetrpc_calls_in_flight` | gauge | `method` | calls and notifications whose handler is running |
//	| `jetrpc_request_size_bytes` | histogram | | sizes of the messages processed (a single message or a whole batch; 64 B to 16 MiB by powers of four) |
//	| `jetrpc_response_bytes_total` | counter | | bytes of their responses (framing aside) |
//	| `jetrpc_batch_size` | histogram | | members of the batches processed |
//	| `jetrpc_rejections_total` | counter | `reason` | refused by a limit: `overloaded` (all workers busy), `shutting_down`, `batch_too_large` (over MaxBatch), `too_deep` (over MaxDepth), `response_too_large` (a response over MaxResponse, or a batch member over MaxBatchResponse), `timeout` (over CallTimeout), `message_too_large` (over MaxMessage: a frame, an HTTP body, a WebSocket message), `max_conns` (a TCP connection over MaxConns), `max_conns_per_ip` (a connection over MaxConnsPerIP), `rate_limited` (a message over its client's RateLimit: -32005 or 429), `unauthorized` (refused by guard.Options.Auth: 401, -32006), `origin_refused` (a browser Origin refused: 403) |
//	| `jetrpc_invalid_messages_total` | counter | `reason` (`parse_error`, `invalid_request`) | messages that were not JSON, or not a valid Request (each invalid batch member counts) |
//	| `jetrpc_dropped_responses_total` | counter | | responses that matched no call of the server, dropped |
//	| `jetrpc_peer_messages_total` | counter | `kind` (`call`, `notification`, `reply`) | messages handlers sent to their client through the Peer |
//	| `jetrpc_connections_open` | gauge | `transport` (`tcp`, `stdio`, `http`, `ws`, `sse`) | connections open: `ws` are the WebSocket connections, `sse` the event streams |
//	| `jetrpc_connections_accepted_total` | counter | `transport` | connections opened (accepted and admitted, upgraded, streams started) |
//	| `jetrpc_write_timeouts_total` | counter | `transport` | connections dropped because a write made no progress within WriteTimeout |
//
// A WebSocket connection also counts as an `http` connection (the one it
// was upgraded from). nethttp.Handler, the net/http adapter, does not see the
// http.Server's connections: it reports its event streams and refused
// bodies only.
package metrics
