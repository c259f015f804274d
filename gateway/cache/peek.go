package cache

// Peeker is a Store that can also look an entry up without waiting for
// anything (no network round trip, no blocking lock): the gateway answers
// such hits on the connection's reading goroutine (gateway.ForwardInline).
// A miss in Peek says nothing: Get may still find the entry.
type Peeker interface {
	// Peek is Get limited to what the store holds in this process.
	Peek(dst, key []byte) (out []byte, ok bool)
}

// Peek is Get: a Memory store is all in this process.
func (m *Memory) Peek(dst, key []byte) ([]byte, bool) { return m.Get(dst, key) }

var _ Peeker = (*Memory)(nil)
