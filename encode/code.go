package encode

import "strconv"

// Code is a JSON-RPC error code.
type Code int32

// The codes defined by the JSON-RPC 2.0 specification, and the engine's own
// conditions in the server error range -32000..-32099.
const (
	CodeParseError     Code = -32700
	CodeInvalidRequest Code = -32600
	CodeMethodNotFound Code = -32601
	CodeInvalidParams  Code = -32602
	CodeInternalError  Code = -32603
	CodeServerError    Code = -32000 // -32000..-32099: engine conditions
	CodeOverloaded     Code = -32001
	CodeShuttingDown   Code = -32002
	CodeTimeout        Code = -32003
	CodeLimitExceeded  Code = -32005 // a client's rate or connection limit (the Ethereum convention)
	CodeUnauthorized   Code = -32006 // the client has not authenticated, or its credential was refused
	CodeForbidden      Code = -32007 // the client's identity may not call the method
)

// NOTE: the named codes are one table, stdErrs: each code with its
// standard message, as the prebuilt *Error that Code.Err returns.
// Code.String reads the messages from it, and stdTails (response.go), the
// prebuilt ends of the standard error responses, are written from it by
// the writer behind AppendError. A code's place in the table is its low
// four bits (c & stdMask), which tell the named codes apart: looking one up
// is a mask and a compare, and a new code whose place is taken does not
// compile (duplicate index). A new named code is one line in stdErrs.

// stdSlots is the size of the table of named codes; stdMask picks a code's
// place in it.
const (
	stdSlots = 16
	stdMask  = stdSlots - 1
)

// stdErrs is the table of named codes, as the errors Code.Err returns for
// them, each at its place c & stdMask; the other places are empty. They
// are shared: never modify them.
var stdErrs = [stdSlots]Error{
	CodeParseError & stdMask:     {Code: CodeParseError, Message: "Parse error"},
	CodeInvalidRequest & stdMask: {Code: CodeInvalidRequest, Message: "Invalid Request"},
	CodeMethodNotFound & stdMask: {Code: CodeMethodNotFound, Message: "Method not found"},
	CodeInvalidParams & stdMask:  {Code: CodeInvalidParams, Message: "Invalid params"},
	CodeInternalError & stdMask:  {Code: CodeInternalError, Message: "Internal error"},
	CodeServerError & stdMask:    {Code: CodeServerError, Message: "Server error"},
	CodeOverloaded & stdMask:     {Code: CodeOverloaded, Message: "Server overloaded"},
	CodeShuttingDown & stdMask:   {Code: CodeShuttingDown, Message: "Server shutting down"},
	CodeTimeout & stdMask:        {Code: CodeTimeout, Message: "Request timed out"},
	CodeLimitExceeded & stdMask:  {Code: CodeLimitExceeded, Message: "Limit exceeded"},
	CodeUnauthorized & stdMask:   {Code: CodeUnauthorized, Message: "Unauthorized"},
	CodeForbidden & stdMask:      {Code: CodeForbidden, Message: "Forbidden"},
}

// std returns c's place in stdErrs and whether c is a named code.
func (c Code) std() (int, bool) {
	i := int(c & stdMask)
	return i, stdErrs[i].Code == c && stdErrs[i].Message != ""
}

// String returns the standard message for c: "Parse error", "Invalid
// Request", "Method not found", "Invalid params", "Internal error",
// "Server overloaded", "Server shutting down", "Request timed out", "Limit
// exceeded", "Unauthorized", "Forbidden", "Server error" for the rest of
// -32000..-32099, and "Error" for any other code.
func (c Code) String() string {
	if i, ok := c.std(); ok {
		return stdErrs[i].Message
	}
	if c.IsServerError() {
		return "Server error"
	}
	return "Error"
}

// IsServerError reports whether c lies in the implementation-defined server
// error range -32000..-32099.
func (c Code) IsServerError() bool { return c <= -32000 && c >= -32099 }

// Err returns an *Error with code c, the standard message c.String() and no
// data. For the named codes (CodeParseError ... CodeForbidden) it is a
// prebuilt value shared by all callers, returned without allocation; it must
// be treated as immutable. Any other code gets a fresh *Error.
func (c Code) Err() error {
	if i, ok := c.std(); ok {
		return &stdErrs[i]
	}
	return &Error{Code: c, Message: c.String()}
}

// Error is a JSON-RPC error object. Data, when non-empty, is raw JSON that
// the creator guarantees to be valid; it is written as it is.
type Error struct {
	Code    Code
	Message string
	Data    []byte
}

// NewError returns an error object with the given members. An empty message
// is replaced by code.String() so that the written object always carries a
// useful message.
func NewError(code Code, message string, data []byte) *Error {
	if message == "" {
		message = code.String()
	}
	return &Error{Code: code, Message: message, Data: data}
}

// Error returns e.g. "jsonrpc: code -32602: Invalid params".
func (e *Error) Error() string {
	b := make([]byte, 0, len("jsonrpc: code -32000: ")+len(e.Message))
	b = append(b, "jsonrpc: code "...)
	b = strconv.AppendInt(b, int64(e.Code), 10)
	b = append(b, ": "...)
	b = append(b, e.Message...)
	return string(b)
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, encode.CodeInvalidParams.Err()) matches any invalid-params
// error whatever its message and data.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}
