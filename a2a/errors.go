package a2a

import (
	"github.com/jetrpc/jetrpc/dispatch"
	"github.com/jetrpc/jetrpc/encode"
)

// The A2A error codes (A2A 1.0 §5.4 and 0.3 §8.2).
const (
	CodeTaskNotFound                 encode.Code = -32001
	CodeTaskNotCancelable            encode.Code = -32002
	CodePushNotificationNotSupported encode.Code = -32003
	CodeUnsupportedOperation         encode.Code = -32004
	CodeContentTypeNotSupported      encode.Code = -32005
	CodeInvalidAgentResponse         encode.Code = -32006
	CodeExtendedCardNotConfigured    encode.Code = -32007
	CodeExtensionSupportRequired     encode.Code = -32008
	CodeVersionNotSupported          encode.Code = -32009
)

// EngineCodes returns the codes an A2A endpoint answers the engine's own
// conditions with (dispatch.Options.Codes; New uses them unless
// Options.Engine sets Codes). A2A claims -32001..-32099 for its errors and
// allocates them upward from -32001 (-32009 so far), and it has a JSON-RPC
// code for none of these conditions, so they all take the far end of the
// range: dispatch.EndOfRangeCodes (Overloaded -32091, ShuttingDown -32092,
// Timeout -32093, LimitExceeded -32095, Unauthorized -32096, Forbidden
// -32097, ResponseTooLarge -32090). docs/errors.md has the whole table.
func EngineCodes() *dispatch.Codes { return dispatch.EndOfRangeCodes() }

// errorSpec is one row of the code table: its message and ErrorInfo
// reason.
type errorSpec struct {
	code    encode.Code
	message string
	reason  string
}

var errorSpecs = [...]errorSpec{
	{CodeTaskNotFound, "Task not found", "TASK_NOT_FOUND"},
	{CodeTaskNotCancelable, "Task cannot be canceled", "TASK_NOT_CANCELABLE"},
	{CodePushNotificationNotSupported, "Push Notification is not supported", "PUSH_NOTIFICATION_NOT_SUPPORTED"},
	{CodeUnsupportedOperation, "This operation is not supported", "UNSUPPORTED_OPERATION"},
	{CodeContentTypeNotSupported, "Incompatible content types", "CONTENT_TYPE_NOT_SUPPORTED"},
	{CodeInvalidAgentResponse, "Invalid agent response", "INVALID_AGENT_RESPONSE"},
	{CodeExtendedCardNotConfigured, "Authenticated Extended Card is not configured", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"},
	{CodeExtensionSupportRequired, "Extension support required", "EXTENSION_SUPPORT_REQUIRED"},
	{CodeVersionNotSupported, "Version not supported", "VERSION_NOT_SUPPORTED"},
}

// Error returns the A2A error of code (one of the Code* constants) with
// detail as its message when not empty, and an ErrorInfo naming its reason
// in error.data; metadata, when not nil, goes into the ErrorInfo (string
// values).
func Error(code encode.Code, detail string, metadata map[string]string) *encode.Error {
	spec := errorSpec{code: code, message: "A2A error", reason: "INTERNAL_ERROR"}
	for _, s := range errorSpecs {
		if s.code == code {
			spec = s
		}
	}
	msg := spec.message
	if detail != "" {
		msg = detail
	}
	return dispatch.NewError(code, msg, errorInfo(spec.reason, metadata))
}

// invalidParams is -32602 with an ErrorInfo (reason INVALID_PARAMS) whose
// metadata names the field.
func invalidParams(field, problem string) *encode.Error {
	return dispatch.NewError(encode.Code(-32602), "Invalid params: "+field+": "+problem,
		errorInfo("INVALID_PARAMS", map[string]string{"field": field, "problem": problem}))
}

// errorInfo is error.data: [{"@type":".../google.rpc.ErrorInfo",...}].
func errorInfo(reason string, metadata map[string]string) []byte {
	b := []byte(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":`)
	b = encode.AppendString(b, reason)
	b = append(b, `,"domain":"a2a-protocol.org"`...)
	if len(metadata) > 0 {
		b = append(b, `,"metadata":{`...)
		first := true
		for _, k := range sortedKeys(metadata) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = encode.AppendString(b, k)
			b = append(b, ':')
			b = encode.AppendString(b, metadata[k])
		}
		b = append(b, '}')
	}
	return append(b, "}]"...)
}
