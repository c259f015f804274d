// Package client calls JSON-RPC 2.0 servers: calls, notifications and
// batches over a raw stream (TCP or unix sockets with any framing, the stdio
// of a child process, any io.ReadWriteCloser), over HTTP, or over a
// WebSocket ([DialWebSocket]: one text message per message, with
// server-initiated calls as on a stream).
//
// A [Client] is safe for concurrent use. Every call gets a fresh numeric id
// from a counter and waits in a pending table keyed by that id; the
// responses, which a server may send in any order, are matched to the calls
// by the id bytes it echoes. On a stream, one reader goroutine per client
// reads the responses; writes are coalesced: the goroutine that finds the
// writer idle writes everything the others queued meanwhile in one write.
//
// Two layers:
//
//   - [Client.CallRaw] takes raw JSON params and appends the raw result to the
//     caller's buffer. In steady state it allocates nothing: pending entries
//     (with their channels) and write buffers are reused.
//   - [Client.Call], [Client.Notify] and [Batch] marshal params and unmarshal
//     results with sonic (github.com/bytedance/sonic), as the typed handlers
//     of package dispatch do.
//
// A JSON-RPC error response comes back as an [*encode.Error] (use errors.As)
// with its code, message and raw data. A context that ends before the answer
// removes the call from the pending table and returns ctx.Err(); a late
// answer is then dropped. When the connection is lost or the client is
// closed, every pending call returns an error for which errors.Is(err,
// ErrClosed) holds; none waits for its context.
//
// Messages the server sends on its own (calls and notifications) go to
// Options.Handler, for example a *dispatch.Engine, and its responses are
// written back. Responses that match no pending call are dropped and counted
// ([Client.Dropped]); malformed input is answered as the protocol says and
// never stops the client.
package client
