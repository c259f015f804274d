package encode

// NOTE: a batch response is assembled in place. The caller remembers where
// the array starts, and the helpers look at dst[start:] to decide whether a
// separator is due, so there is no writer state to allocate or pool:
//
//	start := len(dst)
//	dst = encode.AppendBatchStart(dst)
//	for _, m := range memberResponses { // each a complete response, or empty for a notification
//		dst = encode.AppendBatchMember(dst, start, m)
//	}
//	dst = encode.FinishBatch(dst, start) // "[r1,r2]", or nothing at all when every member was a notification
//
// Members written straight into dst use AppendBatchSep first, and roll back
// to the length before the separator if they turn out to produce nothing.

// AppendBatchStart appends '['. Record start := len(dst) before calling it.
func AppendBatchStart(dst []byte) []byte {
	return append(dst, '[')
}

// AppendBatchSep appends ',' when the batch array that begins at dst[start]
// already holds a member, and nothing otherwise. Call it right before
// appending a member.
func AppendBatchSep(dst []byte, start int) []byte {
	if len(dst) > start+1 {
		dst = append(dst, ',')
	}
	return dst
}

// AppendBatchMember appends one complete member response to the batch array
// that begins at dst[start], with a separator when needed. An empty member
// (a notification's missing response) appends nothing.
func AppendBatchMember(dst []byte, start int, member []byte) []byte {
	if len(member) == 0 {
		return dst
	}
	dst = AppendBatchSep(dst, start)
	return append(dst, member...)
}

// AppendBatchEnd appends ']'.
func AppendBatchEnd(dst []byte) []byte {
	return append(dst, ']')
}

// FinishBatch closes the batch array that begins at dst[start]. When no
// member was appended it removes the '[' and returns dst[:start]: a batch of
// only notifications produces no output at all, not "[]".
func FinishBatch(dst []byte, start int) []byte {
	if len(dst) <= start+1 {
		return dst[:start]
	}
	return append(dst, ']')
}
