// Package load is jetrpc's load generator: C connections, P calls in flight
// on each (pipelined), a bound in time or in calls (always bounded), a mix of
// requests, and every answer matched by id and checked.
//
// Each call gets a fresh numeric id: a Request is parsed once into a template
// (its bytes around every id), and a call appends the template with new ids
// into the connection's own buffer, so sending allocates nothing. An id is
// callID<<10 | k, where k numbers the calls inside a batch and callID names a
// slot of the connection's window (callID = seq*P + slot), so an answer finds
// its call without a map. Answers that match no call in flight, or match one
// twice, count as Mismatched; answers that are not JSON-RPC responses count as
// Malformed; calls never answered count as Unanswered; error responses count
// as Errors. Latency (first byte written to answer read) goes into a
// log-linear Histogram without allocating.
//
// Transports: raw TCP with any framing of frame, HTTP/1.1 with
// fasthttp (a HostClient, or a PipelineClient when P > 1), and WebSocket
// (one message per text frame; fasthttp/websocket's Dialer for the
// handshake, then the same pipelined loop as TCP: see ws.go).
//
// With Config.Reconnect a TCP or WebSocket connection that the server
// closes before the run's bound is dialled again and goes on: its calls in
// flight count as Dropped (a server that shuts down gracefully answers every
// call it has read, so these are calls it never read), and Reconnects
// counts the new connections.
//
// Notifications (requests without an id) occupy no slot: over TCP and
// WebSocket they count as done once written (nothing comes back to wait
// for); over HTTP each one waits for its 204.
package load
