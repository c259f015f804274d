package dispatch

import (
	"encoding/json"
	"reflect"
	"unsafe"

	"github.com/jetrpc/jetrpc/decode"
)

// rawSliceType is []json.RawMessage, the P of a handler that takes its
// positional params as they came, each left for later.
var rawSliceType = reflect.TypeFor[[]json.RawMessage]()

// bindRaws binds params, an array, to the []json.RawMessage at p as
// encoding/json does (each element's bytes as they are in the message), in
// two allocations whatever the number of elements: one copy of the params,
// of which each element is a slice, and the slice of them. An element's
// capacity is its length, so that appending to one never writes over the
// next; nothing aliases the message, so the handler may keep them. false
// (params not an array) leaves *p to the compiled decoder.
func bindRaws(params []byte, p unsafe.Pointer) bool {
	var it decode.Iter
	if !it.Reset(params) || it.IsObject() {
		return false
	}
	n := 0
	for it.Next() {
		n++
	}
	s := make([]json.RawMessage, n)
	if n > 0 {
		own := make([]byte, len(params))
		copy(own, params)
		it.Reset(own)
		for i := 0; it.Next() && i < n; i++ {
			v := it.Value()
			s[i] = v[:len(v):len(v)]
		}
	}
	*(*[]json.RawMessage)(p) = s
	return true
}
