// Package decode classifies and validates JSON-RPC 2.0 messages in place.
//
// A [Parser] makes one pass over a complete message. On the way it checks that the bytes are
// RFC 8259 JSON and valid UTF-8, that nesting stays within a depth limit, and it records where the
// envelope members (jsonrpc, method, params, id, result, error, _meta) lie as sub-slices of the
// input. It builds no tree and copies nothing, except a method name that contains escapes, which is
// unescaped into the Parser's scratch buffer. It then classifies the message as a call,
// notification, result, error response, batch or invalid request, following the project's
// PROTOCOL.md. In steady state a Parser allocates nothing.
//
// A batch's members are kept compact, about 52 bytes each (offsets into the input), so that its
// working memory stays below the size of its text: [Parser.BatchLen], [Parser.BatchKind],
// [Parser.BatchMethod] and [Parser.BatchMember] read them one at a time; [Parser.Batch] builds a
// slice of Messages (152 bytes each) on its first call.
//
// Parse returns a [*SyntaxError] (wrapping [ErrSyntax], [ErrUTF8], [ErrTruncated] or [ErrDepth])
// when the bytes are not a JSON value, or nest deeper than the limit; the engine answers -32700
// (with error.data naming the limit for [ErrDepth]). Valid JSON that is not a valid
// message is a [Message] with Kind [Invalid] and a [Reason]; the engine answers -32600.
//
// The helpers [Iter], [KeyEquals], [AppendUnquote], [ParseInt], [ParseFloat] and [SkipValue] let
// handlers read already-validated params without allocating. [Valid] runs the same validator on
// any JSON value.
//
// Nothing here is safe for concurrent use; keep one Parser per goroutine and reuse it.
package decode
