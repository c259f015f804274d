// Package frame splits a byte stream into JSON-RPC messages and writes
// messages back as frames. It knows four framings (see Kind):
//
//   - NDJSON: one message per line, ended by '\n' ("\r\n" accepted); blank
//     lines are ignored.
//   - Header: "Content-Length: N\r\n", optional other headers, "\r\n", then N
//     bytes, as LSP and MCP over stdio use.
//   - Len32: a 4-byte big-endian length, then that many bytes.
//   - Auto: chosen per stream from its first byte: 0x00 means Len32, 'C' or
//     'c' means Header, anything else NDJSON.
//
// A Reader hands out whole frames as sub-slices of its own buffer, without
// copying and without allocating once the buffer has grown to fit the
// traffic. A frame larger than the message limit is reported with a
// *TooLargeError and skipped without being buffered; the stream then goes on
// with the next frame. A framing error that cannot be recovered from (a
// broken header block) is reported with an error wrapping ErrBroken, and
// every later call returns it again.
//
// Writing is append-style: AppendFrame appends one framed message to a
// slice, and BeginFrame/EndFrame let a caller encode a message straight into
// its frame.
//
// The package does not depend on the server; clients use it too.
package frame
