package bench

import "bytes"

// MessageID returns the raw value of msg's last "id" member (a sub-slice of
// msg), or nil when it has none. It searches bytes and parses nothing, so
// it is right for the messages this package's benchmarks send (one call,
// its id last, a number or a string without ',' or '}'), not in general.
func MessageID(msg []byte) []byte {
	i := bytes.LastIndex(msg, []byte(`"id":`))
	if i < 0 {
		return nil
	}
	v := msg[i+len(`"id":`):]
	if end := bytes.IndexAny(v, ",}"); end >= 0 {
		v = v[:end]
	}
	return bytes.TrimSpace(v)
}

// AppendEcho appends to dst the success response to msg with result:
// {"jsonrpc":"2.0","id":ID,"result":RESULT}, ID copied by MessageID (null
// when there is none). It is
// the transport limit's answer: the id is routed back, no JSON is parsed.
func AppendEcho(dst, msg, result []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	if id := MessageID(msg); len(id) > 0 {
		dst = append(dst, id...)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, '}')
}

// EchoLine returns a Handle for LineServer that answers every line with
// AppendEcho(line, result): the raw echo server, the transport's limit.
func EchoLine(result []byte) func(dst, line []byte) []byte {
	return func(dst, line []byte) []byte { return AppendEcho(dst, line, result) }
}
