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
)

// String returns the standard message for c: "Parse error", "Invalid
// Request", "Method not found", "Invalid params", "Internal error",
// "Server overloaded", "Server shutting down", "Request timed out", "Server
// error" for the rest of -32000..-32099, and "Error" for any other code.
func (c Code) String() string {
	switch c {
	case CodeParseError:
		return "Parse error"
	case CodeInvalidRequest:
		return "Invalid Request"
	case CodeMethodNotFound:
		return "Method not found"
	case CodeInvalidParams:
		return "Invalid params"
	case CodeInternalError:
		return "Internal error"
	case CodeOverloaded:
		return "Server overloaded"
	case CodeShuttingDown:
		return "Server shutting down"
	case CodeTimeout:
		return "Request timed out"
	}
	if c.IsServerError() {
		return "Server error"
	}
	return "Error"
}

// IsServerError reports whether c lies in the implementation-defined server
// error range -32000..-32099.
func (c Code) IsServerError() bool { return c <= -32000 && c >= -32099 }

// The prebuilt errors returned by Code.Err. They are shared: never modify
// them.
var (
	errParse          = &Error{Code: CodeParseError, Message: "Parse error"}
	errInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "Invalid Request"}
	errMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "Method not found"}
	errInvalidParams  = &Error{Code: CodeInvalidParams, Message: "Invalid params"}
	errInternal       = &Error{Code: CodeInternalError, Message: "Internal error"}
	errServer         = &Error{Code: CodeServerError, Message: "Server error"}
	errOverloaded     = &Error{Code: CodeOverloaded, Message: "Server overloaded"}
	errShuttingDown   = &Error{Code: CodeShuttingDown, Message: "Server shutting down"}
	errTimeout        = &Error{Code: CodeTimeout, Message: "Request timed out"}
)

// Err returns an *Error with code c, the standard message c.String() and no
// data. For the named codes (CodeParseError ... CodeTimeout) it is a
// prebuilt value shared by all callers, returned without allocation; it must
// be treated as immutable. Any other code gets a fresh *Error.
func (c Code) Err() error {
	if e := c.stdErr(); e != nil {
		return e
	}
	return &Error{Code: c, Message: c.String()}
}

func (c Code) stdErr() *Error {
	switch c {
	case CodeParseError:
		return errParse
	case CodeInvalidRequest:
		return errInvalidRequest
	case CodeMethodNotFound:
		return errMethodNotFound
	case CodeInvalidParams:
		return errInvalidParams
	case CodeInternalError:
		return errInternal
	case CodeServerError:
		return errServer
	case CodeOverloaded:
		return errOverloaded
	case CodeShuttingDown:
		return errShuttingDown
	case CodeTimeout:
		return errTimeout
	}
	return nil
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
