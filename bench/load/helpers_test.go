package load

import "strconv"

// appendAnswer appends a success answer to the call id of req.
func appendAnswer(dst []byte, req *Request, id uint64) []byte {
	one := func(dst []byte, k int) []byte {
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = strconv.AppendUint(dst, id<<10|uint64(k), 10)
		return append(dst, `,"result":19}`...)
	}
	if !req.IsBatch() {
		return one(dst, 0)
	}
	dst = append(dst, '[')
	for k := range req.Holes() {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = one(dst, k)
	}
	return append(dst, ']')
}
