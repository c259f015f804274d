package encode

import "strconv"

// The constant parts of every message.
const (
	head        = `{"jsonrpc":"2.0","id":`
	resultKey   = `,"result":`
	errorHead   = `,"error":{"code":`
	errorKey    = `,"error":`
	messageKey  = `,"message":`
	dataKey     = `,"data":`
	methodHead  = `,"method":`
	paramsKey   = `,"params":`
	notifHead   = `{"jsonrpc":"2.0","method":`
	null        = `null`
	errorTail   = `}}`
	messageTail = `}`
)

// AppendInt appends the decimal form of n.
func AppendInt(dst []byte, n int64) []byte {
	return strconv.AppendInt(dst, n, 10)
}

// appendRaw appends the raw JSON v, or null when v is empty.
func appendRaw(dst, v []byte) []byte {
	if len(v) == 0 {
		return append(dst, null...)
	}
	return append(dst, v...)
}

// AppendResult appends {"jsonrpc":"2.0","id":ID,"result":RESULT}. id and
// result are raw JSON copied byte for byte; an empty id or result writes
// null.
func AppendResult(dst, id, result []byte) []byte {
	dst = AppendResultStart(dst, id)
	dst = appendRaw(dst, result)
	return append(dst, messageTail...)
}

// AppendResultStart appends {"jsonrpc":"2.0","id":ID,"result": so that a raw
// handler can append its result straight into dst; AppendResultEnd closes
// the object. A caller that must answer with an error instead after the
// handler wrote part of a result truncates dst to its length before
// AppendResultStart.
func AppendResultStart(dst, id []byte) []byte {
	dst = append(dst, head...)
	dst = appendRaw(dst, id)
	return append(dst, resultKey...)
}

// AppendResultEnd closes a response opened with AppendResultStart.
func AppendResultEnd(dst []byte) []byte {
	return append(dst, messageTail...)
}

// AppendError appends
// {"jsonrpc":"2.0","id":ID,"error":{"code":C,"message":"M","data":D}}.
// id is raw JSON (empty writes null), message is escaped with AppendString,
// and data is raw JSON that is left out when empty.
func AppendError(dst, id []byte, code Code, message string, data []byte) []byte {
	dst = append(dst, head...)
	dst = appendRaw(dst, id)
	return appendErrorTail(dst, code, message, data)
}

// appendErrorTail appends what follows the id in an error response.
func appendErrorTail(dst []byte, code Code, message string, data []byte) []byte {
	dst = append(dst, errorHead...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, messageKey...)
	dst = AppendString(dst, message)
	if len(data) > 0 {
		dst = append(dst, dataKey...)
		dst = append(dst, data...)
	}
	return append(dst, errorTail...)
}

// AppendErrorObject appends {"jsonrpc":"2.0","id":ID,"error":OBJ}: obj is
// an error object, raw JSON copied byte for byte (an upstream's, passed
// on by a gateway). obj may lie in dst's spare capacity where it starts no
// sooner than it is to be copied to, as what was appended to dst after
// AppendResultStart(dst, id) does: it is then moved into place.
func AppendErrorObject(dst, id, obj []byte) []byte {
	dst = append(dst, head...)
	dst = appendRaw(dst, id)
	dst = append(dst, errorKey...)
	dst = append(dst, obj...)
	return append(dst, messageTail...)
}

// AppendErrorValue appends the error response for e. A nil e writes the
// standard internal error.
func AppendErrorValue(dst, id []byte, e *Error) []byte {
	if e == nil {
		return AppendStdError(dst, id, CodeInternalError)
	}
	return AppendError(dst, id, e.Code, e.Message, e.Data)
}

// AppendStdError appends the error response for code with its standard
// message (code.String()) and no data. For the named codes the constant
// parts are prebuilt: it costs two copies around the id.
func AppendStdError(dst, id []byte, code Code) []byte {
	i, ok := code.std()
	if !ok {
		return AppendError(dst, id, code, code.String(), nil)
	}
	dst = append(dst, head...)
	dst = appendRaw(dst, id)
	return append(dst, stdTails[i]...)
}

// stdTails[i] is what follows the id in the standard error response for
// the named code stdErrs[i] (empty where stdErrs has none), written once by
// appendErrorTail.
var stdTails = func() (tails [stdSlots]string) {
	for i, e := range stdErrs {
		if e.Message != "" {
			tails[i] = string(appendErrorTail(nil, e.Code, e.Message, nil))
		}
	}
	return tails
}()

// AppendRequest appends {"jsonrpc":"2.0","id":ID,"method":"M","params":P}.
// id is raw JSON (empty writes null: a call with a null id, not a
// notification), method is escaped, params is raw JSON left out when empty.
func AppendRequest(dst, id []byte, method string, params []byte) []byte {
	dst = append(dst, head...)
	dst = appendRaw(dst, id)
	dst = append(dst, methodHead...)
	return appendMethodParams(dst, method, params)
}

// AppendNotification appends {"jsonrpc":"2.0","method":"M","params":P}, with
// params left out when empty.
func AppendNotification(dst []byte, method string, params []byte) []byte {
	dst = append(dst, notifHead...)
	return appendMethodParams(dst, method, params)
}

func appendMethodParams(dst []byte, method string, params []byte) []byte {
	dst = AppendString(dst, method)
	if len(params) > 0 {
		dst = append(dst, paramsKey...)
		dst = append(dst, params...)
	}
	return append(dst, messageTail...)
}
