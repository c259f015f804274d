// Package netserver serves a dispatch.Engine over the network and stdio.
//
// Transports:
//
//   - Raw streams: Server.Serve takes any net.Listener (TCP, unix sockets)
//     and Server.ServeStdio one reader/writer pair such as os.Stdin and
//     os.Stdout. Messages are framed as NDJSON, Content-Length headers (LSP,
//     MCP) or 4-byte lengths, or detected per connection from the first byte
//     (package frame). Responses use the framing of the
//     connection.
//   - HTTP: POST carries one message or batch (200 with the response, 204
//     when none is due, 413 over the message limit, 405 for other methods).
//     HTTPServer (NewHTTP) serves it with fasthttp; HTTPHandler returns the
//     same as a net/http Handler.
//
// Every transport is configured by the same Options (nil means defaults).
//
// # Connections
//
// Each stream connection has one reader goroutine. It hands every frame to
// Engine.TryProcess: cheap messages are answered on the spot, messages that
// may block run on a pool of worker goroutines (notifications that must keep
// their order on a per-connection queue), so a slow call never holds up
// another. Responses may therefore come out of order; clients match them by
// id. The reader processes every frame already received before writing, and
// the responses of that run go out in one write (pipelining with write
// coalescing). MaxInFlight and MaxPending bound the work and the bytes in
// flight (unwritten output, messages running) of a connection: at either bound the connection stops reading until
// there is room again, so a peer that sends without reading its responses
// cannot grow the server's memory; WriteTimeout eventually drops it.
//
// A frame over MaxMessage is answered with -32600 (id null) and skipped; the
// connection goes on. Framing that cannot be resynchronised (a broken header
// block) is answered with -32700 and the connection is closed once the calls
// in flight have been answered. Handler contexts derive from the engine's
// context and are cancelled when their connection fails or when Shutdown's
// context ends.
//
// ReadTimeout cuts off a frame trickled in slowly, IdleTimeout a silent
// connection; a TCP connection silent for a second already gives its read
// and write buffers back, so that an idle connection costs about 6 KiB,
// mostly its goroutine's stack. The limits and what clients get are listed
// in the README; SECURITY.md says what each defends against.
//
// In steady state, handling a message allocates nothing: frames are slices
// of the reader's buffer, work items and buffers come from pools.
package netserver
