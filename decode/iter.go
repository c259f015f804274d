package decode

import "github.com/jetrpc/jetrpc/internal/scan"

// Iter walks the elements of an already-validated JSON array, or the members of an
// already-validated object, without allocating. The zero value is empty; Reset starts it.
//
//	var it decode.Iter
//	it.Reset(msg.Params)
//	for it.Next() {
//		if decode.KeyEquals(it.Key(), "ms") { ... it.Value() ... }
//	}
//
// Key and Value alias the value passed to Reset. On input that was not validated Iter never
// panics, but it may stop early.
type Iter struct {
	data     []byte
	i        int
	obj      bool
	started  bool
	ks, ke   int
	vs, ve   int
	finished bool
}

// Reset starts iterating value, which must be a validated array or object (leading whitespace
// allowed), e.g. Message.Params. It reports false, leaving the Iter empty, if value is neither.
func (it *Iter) Reset(value []byte) bool {
	*it = Iter{finished: true}
	i := scan.SkipWS(value, 0)
	if i >= len(value) || value[i] != '{' && value[i] != '[' {
		return false
	}
	it.data, it.i, it.obj, it.finished = value, i+1, value[i] == '{', false
	return true
}

// IsObject reports whether the value being iterated is an object.
func (it *Iter) IsObject() bool { return it.obj }

// Key returns the current member's name, the raw bytes between the quotes (still escaped: compare
// with KeyEquals, unescape with AppendUnquote on the quoted form). It is nil for arrays.
func (it *Iter) Key() []byte {
	if !it.obj || it.finished {
		return nil
	}
	return it.data[it.ks:it.ke:it.ke]
}

// Value returns the raw bytes of the current element or member value.
func (it *Iter) Value() []byte {
	if it.finished {
		return nil
	}
	return it.data[it.vs:it.ve:it.ve]
}

// Next advances to the next element or member and reports whether there is one.
func (it *Iter) Next() bool {
	if it.finished {
		return false
	}
	data := it.data
	i := scan.SkipWS(data, it.i)
	if i >= len(data) {
		return it.stop()
	}
	if data[i] == '}' || data[i] == ']' {
		return it.stop()
	}
	if it.started {
		if data[i] != ',' {
			return it.stop()
		}
		i = scan.SkipWS(data, i+1)
	}
	it.started = true
	if it.obj {
		if i >= len(data) || data[i] != '"' {
			return it.stop()
		}
		end := scan.SkipString(data, i)
		if end < 0 {
			return it.stop()
		}
		it.ks, it.ke = i+1, end-1
		i = scan.SkipWS(data, end)
		if i >= len(data) || data[i] != ':' {
			return it.stop()
		}
		i++
	}
	i = scan.SkipWS(data, i)
	end := scan.PlainInt(data, i) // a small integer, the usual value, without a call
	if end == i {
		if end = SkipValue(data, i); end < 0 {
			return it.stop()
		}
	}
	it.vs, it.ve, it.i = i, end, end
	return true
}

func (it *Iter) stop() bool {
	it.finished = true
	return false
}

// SkipValue returns the offset just past the already-validated JSON value that starts at data[i]
// after optional whitespace, or -1 when there is no complete value there. It checks only the
// structure it needs (quotes and brackets), so it is faster than validating, and never panics on
// any input.
func SkipValue(data []byte, i int) int { return scan.Skip(data, i) }
