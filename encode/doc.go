// Package encode writes JSON-RPC 2.0 messages append-style: every writer
// appends to the caller's dst slice and returns the extended slice, like
// strconv.AppendInt. Nothing here allocates when dst has room, nothing
// builds a tree, and nothing re-encodes what the caller hands over:
//
//   - ids are copied byte for byte (9007199254740993, 1e3, -0, "a\u0041"
//     come back exactly as sent); a nil or empty id writes null;
//   - results, params and error data are raw JSON that the caller
//     guarantees to be valid; they are copied as they are;
//   - method names and error messages are Go strings and are escaped with
//     AppendString, which produces exactly what encoding/json produces with
//     HTML escaping turned off.
//
// Members are always written in the order jsonrpc, id, then result or error
// (or method, params for requests).
//
// The standard error responses (Code.Err, AppendStdError) are built once,
// from one table of the named codes. Batch arrays are assembled with AppendBatchStart,
// AppendBatchMember / AppendBatchSep and FinishBatch (or AppendBatchEnd);
// see FinishBatch for the protocol rule that a batch of only notifications
// produces no output at all.
//
// The package imports the standard library only and never fmt, io or bytes.
package encode
