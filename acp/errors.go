package acp

import (
	"errors"

	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// ACP's own error codes (the schema's ErrorCode), beside JSON-RPC's.
const (
	// CodeAuthRequired: the agent needs authenticate first.
	CodeAuthRequired encode.Code = -32000
	// CodeResourceNotFound: a session, file or terminal that does not exist.
	CodeResourceNotFound encode.Code = -32002
	// CodeRequestCancelled: the request was cancelled ($/cancel_request).
	CodeRequestCancelled encode.Code = -32800
)

// EngineCodes returns the codes an ACP endpoint answers the engine's own
// conditions with: give them to the engine the Server is registered on
// (dispatch.Options.Codes), as NewAgentConn does for the editor's. ACP
// claims -32000..-32099 for its errors (-32000 and -32002 so far), so the
// conditions take the far end of the range (dispatch.EndOfRangeCodes:
// Overloaded -32091, ShuttingDown -32092, Timeout -32093, LimitExceeded
// -32095, Forbidden -32097, ResponseTooLarge -32090), except Unauthorized,
// which is ACP's CodeAuthRequired (-32000). docs/errors.md has the whole
// table.
func EngineCodes() *dispatch.Codes {
	c := dispatch.EndOfRangeCodes()
	c.Unauthorized = CodeAuthRequired
	return c
}

// Errors of this package.
var (
	// ErrUnsupported: the agent asked for a client method whose capability
	// the client did not declare in initialize (the spec forbids calling
	// it); nothing was sent.
	ErrUnsupported = errors.New("acp: the client did not declare the capability this method needs")
	// ErrNoSession: params without a sessionId (-32602).
	ErrNoSession = dispatch.NewError(encode.CodeInvalidParams, "Invalid params", []byte(`"sessionId is required"`))
	// errCancelled answers a request that $/cancel_request cancelled.
	errCancelled = dispatch.NewError(CodeRequestCancelled, "Request cancelled", nil)
)

// AuthRequired returns the error of a method that needs authenticate first.
func AuthRequired() *encode.Error {
	return dispatch.NewError(CodeAuthRequired, "Authentication required", nil)
}

// NotFound returns the error for a session, file or terminal that does not
// exist; what names it (raw JSON, such as a quoted id) goes in data.
func NotFound(data []byte) *encode.Error {
	return dispatch.NewError(CodeResourceNotFound, "Resource not found", data)
}

// InvalidParams returns -32602 with a message as data.
func InvalidParams(msg string) *encode.Error {
	return dispatch.NewError(encode.CodeInvalidParams, "Invalid params", encode.AppendString(nil, msg))
}
