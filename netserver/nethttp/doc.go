// Package nethttp serves a dispatch.Engine over HTTP/1.1, Server-Sent
// Events and WebSocket, the HTTP side of package netserver:
//
//   - HTTP: POST carries one message or batch (200 with the response, 204
//     when none is due, 413 over the message limit, 405 for other methods);
//     a POST that accepts text/event-stream gets Server-Sent Events.
//     HTTPServer (New) serves it with fasthttp; Handler returns the same as
//     a net/http Handler.
//   - WebSocket: GET /ws on an HTTPServer (see below).
//   - Health endpoints, JSON documents (such as /openrpc.json), mounted
//     net/http handlers and routes of their own (such as MCP's endpoint).
//
// HTTPServer and Handler are configured by netserver.Options, as
// netserver's Server is, and share its guard (Options.Guard), its Health
// and its observer. WebSocket
// connections and event streams run on netserver's connection core (see
// netserver's doc for how a message flows), through a seam that only
// netserver and this package import (netserver/internal/seam).
//
// # WebSocket
//
// A GET /ws carrying the upgrade headers is upgraded once its Origin
// passes the guard's Origin policy (no Origin, the server's own host, or a
// listed origin; else 403) and, with its Auth, its credential (else 401); the
// connection keeps the identity of its upgrade. A GET /ws without the
// upgrade headers gets 405 like every non-POST request. Handler (the
// net/http adapter) does not serve WebSocket: it answers 405 to GET /ws too.
//
// Messages: a text or binary message is one JSON-RPC message or batch;
// every response, notification and call to the client is one text message.
// Messages are handled as on netserver's TCP connections, ordered
// notifications included.
// A text message must be UTF-8 (RFC 6455 section 8.1): one that is not
// fails the connection with 1007 as soon as its bad bytes arrive, even
// before the rest of its frame; a character cut between fragments is fine. A
// binary message is the JSON decoder's to judge (-32700 if it is not UTF-8).
//
// Compression: a client that offers permessage-deflate (RFC 7692) gets it
// unless CompressMin is negative, always without context takeover either
// way (server_no_context_takeover, client_no_context_takeover; a smaller
// server window when asked), so that a connection keeps no compression
// state between messages. Messages the server sends of at least
// CompressMin bytes (default 1 KiB) go compressed when that makes them
// smaller. A compressed message is inflated up to MaxMessage (past it:
// 1009); RSV1 on a control or continuation frame is a protocol error
// (1002), data that does not inflate gets 1007.
//
// Limits: a message over MaxMessage (its fragments joined) closes the
// connection with 1009; MaxInFlight, MaxPending and WriteTimeout bound a
// connection as on TCP. When all workers are busy a call gets -32001.
//
// Close codes: a frame that breaks RFC 6455 (reserved bits, an unknown
// opcode, a fragmented or oversized control frame, a bad fragment sequence,
// an unmasked frame, a malformed close payload or a close reason that is not
// UTF-8) gets close 1002. Before a 1002, 1007 or 1009 the answers already
// computed are written; calls still running are cancelled. When the client
// closes, the answers to the calls it sent before its close frame are
// written first (for at most 2 s, then the calls still running are
// cancelled), then its close code is echoed and the connection closed.
//
// Keep-alive: a client that sends nothing for 30 s (or IdleTimeout/2 when
// smaller) is pinged; one that then sends nothing, not even a pong, for as
// long again is disconnected.
//
// Shutdown stops reading, waits until the calls in flight are answered,
// sends close 1001 (going away), waits at most a second for the client's
// close frame and closes the connection. HTTPServer.Shutdown waits for
// WebSocket connections like for HTTP requests.
package nethttp
