// Package netserver serves a dispatch.Engine over the network and stdio.
//
// Transports:
//
//   - Raw streams: Server.Serve takes any net.Listener (TCP, unix sockets)
//     and Server.ServeStdio one reader/writer pair such as os.Stdin and
//     os.Stdout. Messages are framed as NDJSON, Content-Length headers (LSP,
//     MCP) or 4-byte lengths, or detected per connection from the first byte
//     (package frame). Responses use the framing of the connection.
//   - HTTP, Server-Sent Events and WebSocket: package netserver/nethttp
//     (nethttp.New with fasthttp, nethttp.Handler for net/http), whose
//     WebSocket connections and event streams run on this package's
//     connection core.
//
// Every transport is configured by the same Options (nil means defaults).
//
// # How a message flows
//
// Every connection, whatever its transport, is served by the same
// connection core (core.go); a transport only reads, frames and writes:
//
//  1. Accept. Server.Serve accepts a TCP connection and starts its reader
//     goroutine (stream.go); nethttp's HTTPServer upgrades GET /ws and
//     serves the hijacked connection on fasthttp's goroutine, and an SSE
//     POST gets a stream of its own, each on a core lent through package
//     internal/seam (host.go). Each makes an engineconn.Conn:
//     the engine's view of the connection, with its context and its Peer.
//  2. Read. The reader cuts whole messages out of its buffer (frame.Reader
//     or ws.Reader), without copying, and hands each to the core.
//  3. Dispatch. The core gives the message to Conn.Try. Cheap
//     messages (inline handlers, errors, responses to the server's own
//     calls) are answered at once into the reader's output buffer. A message
//     that may block is copied into a pooled task and runs on the engine's
//     workers, or, for a notification that must keep its order, on the
//     connection's queue, one at a time (core_task.go); a method that may
//     block runs here once it has proved quick (its notifications while
//     that queue is empty). A call for a
//     dispatch.AsyncForwarder (package gateway) is started on the reader
//     instead and answered from the goroutine its answer comes on, queued
//     as a worker's answer is and written without waiting (forward.go).
//     A slow call never holds up another; answers may come out of order.
//  4. Frame. Each response is appended to an output buffer inside its
//     frame: the transport's begin reserves the frame's prefix and end
//     completes it (a length, a WebSocket header, an SSE "data:" line), so
//     the response is encoded straight into its frame. Messages a handler
//     sends to its client through the Peer take the same path.
//  5. Write. When the reader is about to block (no whole message buffered),
//     it hands its output over; whoever finds output waiting and nobody
//     writing becomes the writer and writes everything queued in one write,
//     while the others keep appending. Pipelined calls thus share writes.
//  6. Bound. MaxInFlight and MaxPending bound the tasks and the bytes in
//     flight (unwritten output, messages running) of a connection: at either
//     bound the reader stops reading until there is room, and a handler that
//     notifies waits, so a peer that sends without reading cannot grow the
//     server's memory; WriteTimeout eventually drops it.
//  7. End. When reading ends (EOF, an error, a timeout, Shutdown), the core
//     writes what the reader computed, waits for the tasks in flight and
//     their writes, fails the Peer's pending calls, closes the connection
//     and gives its buffers back to the pools.
//
// In steady state, handling a message allocates nothing: frames are slices
// of the reader's buffer, work items and buffers come from pools.
//
// # Stream connections
//
// A frame over MaxMessage is answered with -32600 (id null) and skipped; the
// connection goes on. Framing that cannot be resynchronised (a broken header
// block) is answered with -32700 and the connection is closed once the calls
// in flight have been answered. Handler contexts derive from the engine's
// context and are cancelled when their connection fails or when Shutdown's
// context ends.
//
// ReadTimeout cuts off a frame trickled in slowly, IdleTimeout a silent
// connection. A TCP connection silent for a second gives its buffers and
// frame reader back and waits for input without a goroutine on Linux (one
// goroutine per Server watches such connections: park.go), so that an idle
// connection costs about 1.3 KiB; over TLS and elsewhere it waits on a
// goroutine of its own, which starts small (under 4 KiB with its stack).
// One that is called again soon after, time after time, waits twice as
// long each time before giving its buffers back, up to a minute. The idle spells take no timer of their
// own: one goroutine per Server watches them all (sweep.go), so that their
// cost does not grow with the connections. A busy connection's read buffer
// starts at 512 bytes and grows while its reads fill it. The limits and what
// clients get are listed in the README; SECURITY.md says what each defends
// against.
//
// # Authentication and per-client limits
//
// Options.Guard (package guard) decides who may use a server and how much:
// authentication, the Origin policy and CORS, the Host check, a rate per
// client and connections per address. Its doc says where each transport
// takes the identity from (the request's headers over HTTP, the upgrade for
// WebSocket, the TLS client certificate or the first call,
// guard.AuthMethod, on TCP and stdio). auth.go plugs it into the stream
// connections, nethttp's http_guard.go into the HTTP servers.
//
// # TLS
//
// Options.TLS serves TLS (1.2 at least) on the TCP connections of a Server
// and on those of nethttp's HTTPServer: HTTPS, and WebSocket and SSE over
// it. The
// handshake runs on the connection's own goroutine, bounded by ReadTimeout,
// so a slow or silent client holds up no other; a client that fails it is
// closed after the alert that says why. Handlers find the connection's TLS
// state, the client's verified certificate included, with TLSState. Package
// tlsconfig builds a configuration from PEM files that reads them again on
// demand or when they change, without dropping open connections.
//
// # Health, drain and shared ports
//
// nethttp's servers answer GET and HEAD of /healthz (alive: 200) and /readyz
// (ready: 200, or 503 once draining), paths set by Options.HealthPath and
// ReadyPath. Shutdown first drains the Options.Health, then keeps serving
// for Options.DrainDelay so that a load balancer that health-checks /readyz
// stops sending; calls made meanwhile are answered, HTTP ones with
// "Connection: close". Then the listeners close, the calls in flight are
// answered and the connections close, as above. Servers that share one
// Health (a TCP Server beside an HTTP server) drain together. Listen with
// ListenOptions.ReusePort (SO_REUSEPORT) lets several processes on one
// host serve one port.
package netserver
