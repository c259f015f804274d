package decode

// Message is one classified message.
//
// Its slices alias the input passed to Parse (or, for a method name with escapes, the Parser's
// scratch buffer); they are valid until the next Parse or Reset, and their capacity ends where the
// value ends, so appending to one never overwrites the input. Clone makes a copy to keep.
//
// All raw slices hold a member's value exactly as sent, whatever its type; a member that is
// absent is nil. When a member appears twice, the first occurrence is recorded (except ID, which
// is then nil).
type Message struct {
	Kind   Kind
	Seen   Members
	Reason Reason // set when Kind == Invalid
	// Method is the unescaped method name when method is a string ("" gives an empty, non-nil
	// slice); nil when absent or not a string.
	Method []byte
	// ID is the id value's raw bytes exactly as sent (`9007199254740993`, `"a\u0041"`, `null`).
	// It is nil when id is absent, appears twice, or is not a string, number or null: the answer's
	// id is then null. It is set even when the message is otherwise Invalid.
	ID     []byte
	Params []byte // raw value of params
	Result []byte // raw value of result
	Error  []byte // raw value of error
	Meta   []byte // raw value of _meta

	compact bool // Params is an array or object with no whitespace outside its strings
}

// ParamsCompact reports whether Params is an array or object that the Parser found to hold no
// whitespace outside its strings: byte for byte what encoding/json's Compact (and Marshal of a
// json.RawMessage, without HTML escaping) writes for it, so it can be copied as it is. False
// means only that the Parser does not know it (params spaced out, absent, or not scanned by
// a Parser); it is never true for params that hold whitespace between their tokens.
func (m *Message) ParamsCompact() bool { return m.compact }

// Clone returns a deep copy of m whose slices share one new buffer (one allocation), for callers
// that keep the message past the next Parse.
func (m *Message) Clone() Message {
	c := *m
	n := len(m.Method) + len(m.ID) + len(m.Params) + len(m.Result) + len(m.Error) + len(m.Meta)
	if n == 0 {
		// Nothing to copy, but keep empty non-nil slices (Method "") non-nil without aliasing.
		c.Method, c.ID, c.Params = emptyClone(m.Method), emptyClone(m.ID), emptyClone(m.Params)
		c.Result, c.Error, c.Meta = emptyClone(m.Result), emptyClone(m.Error), emptyClone(m.Meta)
		return c
	}
	buf := make([]byte, 0, n)
	c.Method, buf = cloneInto(buf, m.Method)
	c.ID, buf = cloneInto(buf, m.ID)
	c.Params, buf = cloneInto(buf, m.Params)
	c.Result, buf = cloneInto(buf, m.Result)
	c.Error, buf = cloneInto(buf, m.Error)
	c.Meta, _ = cloneInto(buf, m.Meta)
	return c
}

// cloneInto appends b to buf and returns the copy (nil stays nil) and the grown buffer.
func cloneInto(buf, b []byte) ([]byte, []byte) {
	if b == nil {
		return nil, buf
	}
	start := len(buf)
	buf = append(buf, b...)
	return buf[start:len(buf):len(buf)], buf
}

func emptyClone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return []byte{}
}
