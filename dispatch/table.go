package dispatch

import (
	"encoding/binary"
	"math/bits"
)

// NOTE: the frozen method table is an open-addressing array sized to a power
// of two at least twice the method count. A name's slot comes from a cheap
// mix of its length and its first and last eight bytes (one or two loads, no
// loop), and a lookup compares at most a few names byte for byte. It beats a
// map[string] lookup by skipping the general string hash; names are never
// copied or converted.

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
	for i := hashName(name) & t.mask; ; i = (i + 1) & t.mask {
		m := t.slots[i]
		if m == nil || m.name == string(name) {
			return m
		}
	}
}

// hashName mixes a name's length with its first and last eight bytes.
func hashName[S string | []byte](s S) uint64 {
	n := len(s)
	var h uint64
	switch {
	case n >= 8:
		h = load64(s, 0) ^ bits.RotateLeft64(load64(s, n-8), 29)
	case n > 0:
		for i := 0; i < n; i++ {
			h = h<<8 | uint64(s[i])
		}
	}
	h ^= uint64(n) * 0x9e3779b97f4a7c15
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>31
}

func load64[S string | []byte](s S, i int) uint64 {
	var b [8]byte
	copy(b[:], s[i:i+8])
	return binary.LittleEndian.Uint64(b[:])
}
