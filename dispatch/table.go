package dispatch

import (
	"math/bits"

	"github.com/jetrpc/jetrpc/internal/bytesconv"
)

// NOTE: the frozen method table is an open-addressing array sized to a power
// of two at least twice the method count. A name's slot comes from a cheap
// mix of its length and three of its bytes (no loop), and a lookup compares
// at most a few names byte for byte. It beats a map[string] lookup by
// skipping the general string hash; names are never copied.

type table struct {
	slots []*method
	mask  uint64
}

func newTable(ms []*method) table {
	n := 1 << bits.Len(uint(2*len(ms)))
	t := table{slots: make([]*method, n), mask: uint64(n - 1)}
	for _, m := range ms {
		i := hashName(m.name) & t.mask
		for t.slots[i] != nil {
			i = (i + 1) & t.mask
		}
		t.slots[i] = m
	}
	return t
}

// lookup returns the method named name, or nil.
func (t *table) lookup(name []byte) *method {
	if len(t.slots) == 0 {
		return nil
	}
	for i := hashName(bytesconv.B2S(name)) & t.mask; ; i = (i + 1) & t.mask {
		m := t.slots[i]
		if m == nil || m.name == string(name) {
			return m
		}
	}
}

// hashName mixes a name's length with its first and last bytes: no loop,
// inlinable. Names that share all three only cost a longer probe, bounded
// by the number of methods.
func hashName(s string) uint64 {
	h := uint64(len(s))
	if len(s) > 0 {
		h |= uint64(s[0])<<8 | uint64(s[len(s)-1])<<16 | uint64(s[len(s)/2])<<24
	}
	h *= 0x9e3779b97f4a7c15
	return h ^ h>>29
}
